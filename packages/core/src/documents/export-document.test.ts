import { describe, expect, it } from "vitest";
import { exportDocument, exportFileName } from "./export-document.ts";
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

  it("exports 1 MB of Markdown as HTML and PDF (timings logged, not asserted)", { timeout: 120_000 }, async () => {
    let content = "";
    for (let index = 0; content.length < 1024 * 1024; index += 1) {
      content += `## Section ${index}\n\nA paragraph with **bold** and *italic* words, a [link](https://example.com/${index}) and \`code\`.\n\n- one\n- two\n\n`;
    }
    const document = { title: "Large", format: "markdown" as const, content };
    let started = performance.now();
    const html = await exportDocument(document, "html");
    const htmlMs = performance.now() - started;
    started = performance.now();
    const pdf = await exportDocument(document, "pdf");
    const pdfMs = performance.now() - started;
    console.log(`bench: 1 MB Markdown → HTML ${Math.round(htmlMs)} ms (${html.body.length} bytes), PDF ${Math.round(pdfMs)} ms (${pdf.body.length} bytes)`);
    expect(pdf.body.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(html.body.toString("utf8")).toContain("<h2>Section 0</h2>");
  });
});
