import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { exportDocument, exportFileName } from "./export-document.ts";
import { largeMarkdownDocument } from "../testing/large-markdown-document.ts";
import { readPdf, textOutsideMargins } from "../testing/read-pdf.ts";
import { renderDocumentHtml } from "./render-document-html.ts";

describe("document export", () => {
  it("escapes raw HTML and refuses javascript: links in HTML", () => {
    const html = renderDocumentHtml({ title: "<b>t</b>", format: "markdown", content: "<script>x()</script>\n\n[a](javascript:x()) [b](https://example.com)" });
    expect(html).not.toMatch(/<script|<b>t|href="javascript/i);
    expect(html).toContain('<a href="https://example.com">b</a>');
  });

  it("renders plain text documents as preformatted text", () => {
    expect(renderDocumentHtml({ title: "t", format: "text", content: "# not a heading <i>" })).toContain("<pre># not a heading &#60;i&#62;</pre>");
  });

  it("names the file after the title", () => {
    expect(exportFileName("Q3 plan: draft/2", "pdf")).toBe("Q3-plan-draft-2.pdf");
    expect(exportFileName("///", "html")).toBe("document.html");
  });

  // Timings are in bench/pdf-export.ts, never asserted here.
  it("exports 1 MB of Markdown as HTML and as a PDF whose text reads back in order", { timeout: 120_000 }, async () => {
    const content = largeMarkdownDocument(1024 * 1024);
    const document = { title: "Large", format: "markdown" as const, content };
    const html = await exportDocument(document, "html");
    expect(html.body.toString("utf8")).toContain("<h2>Section 0: planning notes</h2>");

    const pdf = await exportDocument(document, "pdf");
    expect(pdf.contentType).toBe("application/pdf");
    expect(pdf.filename).toBe("Large.pdf");
    const read = await readPdf(pdf.body);
    expect(read.warnings).toBe("");
    expect(read.pages.length).toBeGreaterThan(100);
    // A4 with margins of 2 cm: no line of any block runs into them.
    expect(textOutsideMargins(read, 56.69)).toEqual([]);
    const first = read.text.indexOf("FIRST-PARAGRAPH-MARKER opens the document.");
    const middle = read.text.indexOf("Section 2000: planning notes");
    const last = read.text.indexOf("The LAST-PARAGRAPH-MARKER closes the document.");
    expect(first).toBeGreaterThanOrEqual(0);
    expect(middle).toBeGreaterThan(first);
    expect(last).toBeGreaterThan(middle);
    for (const word of [
      "λόγος",
      "привет",
      "«добрый день»",
      "Αυτή είναι μια παράγραφος",
      "12 €",
      "checked ✓",
      "• Draft the proposal",
      "2. Second ordered step",
    ]) {
      expect(read.text).toContain(word);
    }
  });

  it("loads markdown-it and the PDF writer on the first export that needs them, not with the package", { timeout: 60_000 }, async () => {
    // A module hook in a fresh process reports every file of the two packages as it is resolved.
    const hook = `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent("export async function resolve(specifier, context, next) { const result = await next(specifier, context); if (result.url.includes('/node_modules/fontkit/') || result.url.includes('/node_modules/markdown-it/')) console.log('loaded ' + result.url); return result; }"));`;
    const script = `const core = await import("@agentq/core");
console.log("exporting");
await core.exportDocument({ title: "t", content: "x", format: "markdown" }, "pdf");`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--import", `data:text/javascript,${encodeURIComponent(hook)}`, "--input-type=module", "-e", script],
      { cwd: fileURLToPath(new URL("../../../../", import.meta.url)) },
    );
    const [atBoot = "", atExport = ""] = stdout.split("exporting\n");
    expect(atBoot).not.toMatch(/loaded/);
    expect(atExport).toMatch(/loaded .*node_modules\/markdown-it\//);
    expect(atExport).toMatch(/loaded .*node_modules\/fontkit\//);
  });
});
