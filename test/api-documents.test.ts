import { createServer, type Server } from "node:http";
import { readPdf } from "@agentq/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestJson, startTestApi, type TestApi } from "./support/test-api.ts";

let api: TestApi;
let alice: { id: string; token: string };
let bob: { id: string; token: string };

beforeAll(async () => {
  api = await startTestApi();
  const create = async (name: string) => {
    const response = await requestJson(`${api.url}/api/users`, { token: api.adminToken, body: { name } });
    expect(response.status).toBe(201);
    return response.body as { id: string; token: string };
  };
  alice = await create("alice");
  bob = await create("bob");
});

afterAll(async () => {
  await api?.close();
});

function url(path: string): string {
  return `${api.url}${path}`;
}

async function createDocument(token: string, body: Record<string, unknown>) {
  const response = await requestJson(url("/api/documents"), { token, body });
  expect(response.status).toBe(201);
  return response.body as { id: string; revision: number; title: string; content: string };
}

async function download(path: string, token: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(url(path), { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe("documents over REST", () => {
  it("creates, reads, lists and searches a user's documents", async () => {
    const created = await createDocument(alice.token, { title: "Plan", content: "# Plan\n\nShip the *thing*." });
    expect(created).toMatchObject({ title: "Plan", format: "markdown", revision: 1, content: "# Plan\n\nShip the *thing*." });
    const read = await requestJson(url(`/api/documents/${created.id}`), { token: alice.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...created });
    await createDocument(alice.token, { title: "Minutes", content: "no news", format: "text" });
    const all = await requestJson(url("/api/documents"), { token: alice.token });
    expect(all.body.documents.map((document: { title: string }) => document.title).sort()).toEqual(["Minutes", "Plan"]);
    expect(all.body.documents[0]).not.toHaveProperty("content");
    const found = await requestJson(url("/api/documents?query=THING"), { token: alice.token });
    expect(found.body.documents.map((document: { id: string }) => document.id)).toEqual([created.id]);
    const none = await requestJson(url("/api/documents"), { token: bob.token });
    expect(none.body.documents).toEqual([]);
  });

  it("updates against the current base revision; a stale base is 409 revision_conflict and changes nothing", async () => {
    const created = await createDocument(alice.token, { title: "Report", content: "v1" });
    const updated = await requestJson(url(`/api/documents/${created.id}`), { method: "PUT", token: alice.token, body: { content: "v2", base_revision: 1 } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ revision: 2, content: "v2", title: "Report" });
    const retitled = await requestJson(url(`/api/documents/${created.id}`), {
      method: "PUT",
      token: alice.token,
      body: { title: "Final report", base_revision: 2 },
    });
    expect(retitled.body).toMatchObject({ revision: 3, content: "v2", title: "Final report" });

    const stale = await requestJson(url(`/api/documents/${created.id}`), { method: "PUT", token: alice.token, body: { content: "lost", base_revision: 2 } });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: "revision_conflict", details: { current_revision: 3 } });
    expect((await requestJson(url(`/api/documents/${created.id}`), { token: alice.token })).body).toMatchObject({ revision: 3, content: "v2" });

    const missingBase = await requestJson(url(`/api/documents/${created.id}`), { method: "PUT", token: alice.token, body: { content: "x" } });
    expect(missingBase.status).toBe(400);
    expect(missingBase.body.error.code).toBe("invalid_request");
  });

  it("two concurrent updates from the same base: exactly one lands", async () => {
    const created = await createDocument(alice.token, { title: "Race", content: "base" });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        requestJson(url(`/api/documents/${created.id}`), { method: "PUT", token: alice.token, body: { content: `writer ${index}`, base_revision: 1 } }),
      ),
    );
    const winners = responses.filter((response) => response.status === 200);
    expect(winners).toHaveLength(1);
    for (const loser of responses.filter((response) => response.status !== 200)) {
      expect([loser.status, loser.body.error.code, loser.body.error.details.current_revision]).toEqual([409, "revision_conflict", 2]);
    }
    const revisions = await requestJson(url(`/api/documents/${created.id}/revisions`), { token: alice.token });
    expect(revisions.body.revisions.map((revision: { revision: number }) => revision.revision)).toEqual([1, 2]);
    expect((await requestJson(url(`/api/documents/${created.id}`), { token: alice.token })).body.content).toBe(winners[0]!.body.content);
  });

  it("keeps every revision: listed with author and read back", async () => {
    const created = await createDocument(alice.token, { title: "History", content: "first" });
    await requestJson(url(`/api/documents/${created.id}`), { method: "PUT", token: alice.token, body: { content: "second", base_revision: 1 } });
    const revisions = await requestJson(url(`/api/documents/${created.id}/revisions`), { token: alice.token });
    expect(revisions.status).toBe(200);
    expect(revisions.body.revisions).toEqual([
      { revision: 1, created_at: expect.any(String), author: "user", run_id: null },
      { revision: 2, created_at: expect.any(String), author: "user", run_id: null },
    ]);
    const first = await requestJson(url(`/api/documents/${created.id}/revisions/1`), { token: alice.token });
    expect(first.body).toMatchObject({ id: created.id, revision: 1, content: "first" });
    const second = await requestJson(url(`/api/documents/${created.id}/revisions/2`), { token: alice.token });
    expect(second.body).toMatchObject({ revision: 2, content: "second" });
    expect((await requestJson(url(`/api/documents/${created.id}/revisions/3`), { token: alice.token })).status).toBe(404);
    expect((await requestJson(url(`/api/documents/${created.id}/revisions/abc`), { token: alice.token })).status).toBe(400);
  });

  it("exports Markdown as stored, HTML and PDF, as attachments", async () => {
    const content = "# Quarterly plan\n\nWe will **grow** the garden.\n\n- tomatoes\n- beans\n";
    const created = await createDocument(alice.token, { title: "Quarterly plan", content });
    const markdown = await download(`/api/documents/${created.id}/export?format=markdown`, alice.token);
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get("content-disposition")).toMatch(/^attachment; filename="Quarterly-plan\.md"/);
    expect(markdown.bytes.toString("utf8")).toBe(content);

    const html = await download(`/api/documents/${created.id}/export?format=html`, alice.token);
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(html.headers.get("content-disposition")).toMatch(/^attachment; filename="Quarterly-plan\.html"/);
    expect(html.bytes.toString("utf8")).toContain("<strong>grow</strong>");

    const pdf = await download(`/api/documents/${created.id}/export?format=pdf`, alice.token);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(pdf.headers.get("content-disposition")).toMatch(/^attachment; filename="Quarterly-plan\.pdf"/);
    expect(pdf.bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const { text } = await readPdf(pdf.bytes);
    expect(text).toContain("Quarterly plan");
    expect(text).toContain("We will grow the garden.");
    expect(text).toContain("tomatoes");

    // A download link cannot send a header: the export route takes ?token=.
    const byQuery = await fetch(url(`/api/documents/${created.id}/export?format=markdown&token=${encodeURIComponent(alice.token)}`));
    expect(byQuery.status).toBe(200);
    expect((await requestJson(url(`/api/documents/${created.id}?token=${encodeURIComponent(alice.token)}`))).status).toBe(401);
    expect((await requestJson(url(`/api/documents/${created.id}/export?format=docx`), { token: alice.token })).status).toBe(400);
  });

  it("HTML export of <script> and javascript: links is inert", async () => {
    const created = await createDocument(alice.token, {
      title: "<script>alert('title')</script>",
      content: "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[click](javascript:alert(3))\n\n[ok](https://example.com/)",
    });
    const html = (await download(`/api/documents/${created.id}/export?format=html`, alice.token)).bytes.toString("utf8");
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain('<a href="https://example.com/">ok</a>');
    expect(html).toContain("Content-Security-Policy");
  });

  it("a PDF export reads no file and fetches no URL the document names", async () => {
    let fetched = 0;
    const server: Server = createServer((_request, response) => {
      fetched += 1;
      response.end("x");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address() as { port: number };
    try {
      const created = await createDocument(alice.token, {
        title: "Images",
        content: `![secret](/etc/passwd)\n\n![remote](http://127.0.0.1:${address.port}/image.png)\n\n[link](file:///etc/hostname)\n`,
      });
      const pdf = await download(`/api/documents/${created.id}/export?format=pdf`, alice.token);
      expect(pdf.status).toBe(200);
      const { text } = await readPdf(pdf.bytes);
      expect(text).toContain("/etc/passwd");
      expect(text).not.toContain("root:");
      expect(fetched).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("another user's document is 404 everywhere, and delete removes it", async () => {
    const created = await createDocument(alice.token, { title: "Private", content: "mine" });
    const paths: [string, string, unknown?][] = [
      ["GET", `/api/documents/${created.id}`],
      ["PUT", `/api/documents/${created.id}`, { content: "theirs", base_revision: 1 }],
      ["GET", `/api/documents/${created.id}/revisions`],
      ["GET", `/api/documents/${created.id}/revisions/1`],
      ["GET", `/api/documents/${created.id}/export?format=pdf`],
      ["DELETE", `/api/documents/${created.id}`],
    ];
    for (const [method, path, body] of paths) {
      const response = await requestJson(url(path), { method, token: bob.token, ...(body ? { body } : {}) });
      expect([path, method, response.status, response.body?.error?.code]).toEqual([path, method, 404, "not_found"]);
    }
    expect((await requestJson(url(`/api/documents/${created.id}`), { token: alice.token })).body).toMatchObject({ content: "mine", revision: 1 });
    expect((await requestJson(url(`/api/documents/${created.id}`), { method: "DELETE", token: alice.token })).status).toBe(204);
    expect((await requestJson(url(`/api/documents/${created.id}`), { token: alice.token })).status).toBe(404);
    expect((await requestJson(url(`/api/documents/${created.id}/revisions`), { token: alice.token })).status).toBe(404);
  });
});
