import { describe, expect, it } from "vitest";
import { largeMarkdownDocument } from "../../testing/large-markdown-document.ts";
import { type PdfTextBox, readPdf, textOutsideMargins } from "../../testing/read-pdf.ts";
import { renderDocumentPdf } from "./render-document-pdf.ts";

const MARGIN = 56.69;
const BODY_SIZE = 10.5;

async function markdownPdf(content: string, title = "Test") {
  return readPdf(await renderDocumentPdf({ title, content, format: "markdown" }));
}

function boxWith(boxes: readonly PdfTextBox[], text: string): PdfTextBox {
  const box = boxes.find((candidate) => candidate.text.includes(text));
  if (box === undefined) throw new Error(`no text box with ${JSON.stringify(text)}: ${JSON.stringify(boxes.map((candidate) => candidate.text))}`);
  return box;
}

describe("PDF rendering", () => {
  it("makes headings bigger and bold, code monospaced, and lists with bullets and numbers", async () => {
    const pdf = await markdownPdf(
      "# Heading one\n\nBody text with **strong words** and *slanted words*.\n\n## Heading two\n\n" +
        "- first bullet\n- second bullet\n  - nested bullet\n\n3. third step\n4. fourth step\n\n```\nconst answer = 42;\n```\n\nInline `snippet` here.\n",
    );
    expect(pdf.warnings).toBe("");
    const body = boxWith(pdf.boxes, "Body text with");
    // poppler rounds sizes to whole points.
    expect(Math.abs(body.size - BODY_SIZE)).toBeLessThanOrEqual(0.5);
    expect(body.bold).toBe(false);
    for (const heading of ["Heading one", "Heading two"]) {
      const box = boxWith(pdf.boxes, heading);
      expect(box.bold).toBe(true);
      expect(box.size).toBeGreaterThan(body.size + 4);
    }
    expect(boxWith(pdf.boxes, "Heading one").size).toBeGreaterThan(boxWith(pdf.boxes, "Heading two").size);
    expect(boxWith(pdf.boxes, "strong words").bold).toBe(true);
    expect(boxWith(pdf.boxes, "slanted words").italic).toBe(true);
    expect(boxWith(pdf.boxes, "const answer = 42;").family).toMatch(/\+DejaVuSansMono$/);
    expect(boxWith(pdf.boxes, "snippet").family).toMatch(/\+DejaVuSansMono$/);
    expect(boxWith(pdf.boxes, "Body text with").family).not.toMatch(/Mono/);

    const lines = pdf.text.split("\n");
    expect(lines).toEqual(expect.arrayContaining(["• first bullet", "• second bullet", "◦ nested bullet", "3. third step", "4. fourth step"]));
    // Items are indented from the body's left edge, a nested item further.
    expect(boxWith(pdf.boxes, "first bullet").left).toBeGreaterThan(body.left);
    expect(boxWith(pdf.boxes, "nested bullet").left).toBeGreaterThan(boxWith(pdf.boxes, "first bullet").left);
  });

  it("lists the headings as bookmarks, nested by level, each pointing at its page", async () => {
    const filler = "Filler paragraph to push the next heading down the pages. ".repeat(40);
    const pdf = await markdownPdf(
      `# Part one\n\n${filler}\n\n## Chapter «α»\n\n${filler}\n\n### Detail\n\n${filler}\n\n# Part two\n\n${filler.repeat(6)}\n\n## Chapter two\n`,
    );
    expect(pdf.outline.map(({ title, depth }) => [title, depth])).toEqual([
      ["Part one", 0],
      ["Chapter «α»", 1],
      ["Detail", 2],
      ["Part two", 0],
      ["Chapter two", 1],
    ]);
    for (const item of pdf.outline) expect(boxWith(pdf.boxes, item.title).page).toBe(item.page);
    expect(pdf.outline.at(-1)?.page).toBeGreaterThan(1);
  });

  it("extracts Greek, Cyrillic and symbols as written, and characters the font has no glyph for", async () => {
    const pdf = await markdownPdf("Ελληνικά: λόγος. Русский: привет, «добрый день». Symbols: € — ✓ → • ½ ©. Missing glyphs: 中文 😀.\n", "Заголовок ✓");
    expect(pdf.warnings).toBe("");
    const text = pdf.text.replace(/\s+/g, " ");
    expect(text).toContain("Заголовок ✓");
    expect(text).toContain("Ελληνικά: λόγος. Русский: привет, «добрый день». Symbols: € — ✓ → • ½ ©. Missing glyphs: 中文 😀.");
  });

  it("exports a document of more distinct characters than a font can number", async () => {
    // 70,000 code points from U+4E00 on, surrogate halves skipped (CJK ideographs and beyond: boxes in
    // DejaVu, but they copy as written).
    const characters = Array.from({ length: 72_048 }, (_unused, index) => 0x4e00 + index)
      .filter((codePoint) => codePoint < 0xd800 || codePoint > 0xdfff)
      .map((codePoint) => String.fromCodePoint(codePoint))
      .join("");
    const pdf = await readPdf(await renderDocumentPdf({ title: "Many characters", content: characters, format: "text" }));
    expect(pdf.warnings).toBe("");
    expect(pdf.pages.length).toBeGreaterThan(1);
    expect(pdf.text.replace(/\s/g, "")).toContain(characters.slice(0, 1000));
  });

  it("wraps long paragraphs, long words and long code lines inside the page margins", async () => {
    const word = "Supercalifragilistic".repeat(20);
    const codeLine = `const values = [${Array.from({ length: 80 }, (_unused, index) => index).join(", ")}];`;
    const pdf = await markdownPdf(
      `${"A sentence that repeats until the paragraph is much wider than a page. ".repeat(12)}\n\n${word}\n\n\`\`\`\n${codeLine}\n\`\`\`\n\n> ${"Quoted words go on and on. ".repeat(10)}\n\n- ${"Listed words go on and on. ".repeat(10)}\n`,
    );
    expect(pdf.warnings).toBe("");
    expect(textOutsideMargins(pdf, MARGIN)).toEqual([]);
    const paragraphLines = pdf.boxes.filter((box) => box.text.includes("A sentence that"));
    expect(paragraphLines.length).toBeGreaterThan(5);
    // Nothing is lost at the breaks: joined back, the word and the code line are whole (a reader
    // drops the space a code line was cut after, so spaces are left out of that comparison).
    expect(pdf.text.replace(/\n/g, "")).toContain(word);
    expect(pdf.text.replace(/\s/g, "")).toContain(codeLine.replace(/\s/g, ""));
    expect(pdf.boxes.filter((box) => box.text.startsWith("const values")).length).toBe(1);
  });

  it("breaks a long document into pages, its text in order", async () => {
    const paragraphs = Array.from({ length: 400 }, (_unused, index) => `Paragraph number ${index} of the long document.`);
    const pdf = await markdownPdf(paragraphs.join("\n\n"));
    expect(pdf.warnings).toBe("");
    expect(pdf.pages.length).toBeGreaterThan(5);
    expect(pdf.text.split("\f").length - 1).toBe(pdf.pages.length);
    let position = -1;
    for (const paragraph of paragraphs) {
      const next = pdf.text.indexOf(paragraph, position + 1);
      expect(next, paragraph).toBeGreaterThan(position);
      position = next;
    }
    expect(textOutsideMargins(pdf, MARGIN)).toEqual([]);
  });

  it("prints images and links as text, web links clickable: the image file is never read", async () => {
    const pdf = await markdownPdf("![secret](/etc/passwd)\n\n[remote](https://example.com/a) and [local](file:///etc/hostname) and https://example.org/b\n");
    const text = pdf.text.replace(/\s+/g, " ");
    expect(text).toContain("[image: secret (/etc/passwd)]");
    expect(text).not.toContain("root:");
    expect(text).toContain("remote (https://example.com/a)");
    // markdown-it refuses file: links: they stay as the Markdown that was written.
    expect(text).toContain("[local](file:///etc/hostname)");
    expect(text).toContain("https://example.org/b");
    expect(boxWith(pdf.boxes, "remote").link).toBe("https://example.com/a");
    expect(boxWith(pdf.boxes, "https://example.org/b").link).toBe("https://example.org/b");
    expect(pdf.boxes.filter((box) => box.link !== undefined && !box.link.startsWith("https://"))).toEqual([]);
  });

  it("gives neighbouring links of one style each its own clickable address", async () => {
    const bytes = await renderDocumentPdf({ title: "Links", content: "<https://a.example/one><https://b.example/two>\n", format: "markdown" });
    // poppler reports one text box with the first link for both: the annotations are read from the file
    // (page dictionaries are not compressed).
    const addresses = [...bytes.toString("latin1").matchAll(/\/URI \(([^)]*)\)/g)].map((match) => match[1]);
    expect(addresses).toEqual(["https://a.example/one", "https://b.example/two"]);
    expect((await readPdf(bytes)).text).toContain("https://a.example/onehttps://b.example/two");
  });

  it("lays tables out in columns with a bold header row", async () => {
    const pdf = await markdownPdf("| Name | Amount |\n| --- | --- |\n| Coffee | 3 € |\n| Чай | 2 € |\n");
    const name = boxWith(pdf.boxes, "Name");
    const amount = boxWith(pdf.boxes, "Amount");
    expect(name.bold).toBe(true);
    expect(amount.top).toBe(name.top);
    expect(amount.left).toBeGreaterThan(name.left + 100);
    expect(boxWith(pdf.boxes, "2 €").left).toBe(amount.left);
    expect(boxWith(pdf.boxes, "Чай").top).toBeGreaterThan(boxWith(pdf.boxes, "Coffee").top);
  });

  it("lays plain text out monospaced, keeping its spaces, without reading it as Markdown", async () => {
    const pdf = await readPdf(await renderDocumentPdf({ title: "Notes", content: "# not a heading\ncolumn    aligned\n\n**not bold**", format: "text" }));
    const heading = boxWith(pdf.boxes, "# not a heading");
    expect(heading.family).toMatch(/\+DejaVuSansMono$/);
    expect(heading.bold).toBe(false);
    expect(pdf.text).toContain("**not bold**");
    expect(boxWith(pdf.boxes, "column").width).toBeGreaterThan(boxWith(pdf.boxes, "**not bold**").width);
  });

  it("hands the event loop back while it lays out a large document", async () => {
    const content = largeMarkdownDocument(512 * 1024);
    const timer = new Promise<string>((resolve) => setTimeout(() => resolve("timer"), 0));
    const render = renderDocumentPdf({ title: "Large", content, format: "markdown" }).then(() => "render");
    expect(await Promise.race([timer, render])).toBe("timer");
    await render;
  });

  it("gives the file's /Info the title as the page prints it, control characters made spaces", async () => {
    const bytes = await renderDocumentPdf({ title: "Bell\u0007title", content: "", format: "markdown" });
    expect(bytes.toString("latin1")).toContain("/Title (Bell title)");
    expect((await readPdf(bytes)).text).toContain("Bell title");
  });

  it("makes a valid one-page PDF of an empty document", async () => {
    const pdf = await markdownPdf("");
    expect(pdf.warnings).toBe("");
    expect(pdf.pages).toHaveLength(1);
    expect(pdf.text).toContain("Test");
  });
});
