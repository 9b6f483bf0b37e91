import { createRequire } from "node:module";
import path from "node:path";
import MarkdownIt from "markdown-it";

export const EXPORT_FORMATS = ["markdown", "html", "pdf"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportedDocument {
  body: Buffer;
  contentType: string;
  /** A file name for the download: the title made safe, with the format's extension. */
  filename: string;
}

// html: false escapes every tag of the source, and markdown-it's validateLink refuses javascript:,
// vbscript:, file: and most data: links (they stay as text): the HTML is inert however it is opened.
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });
type Token = ReturnType<typeof markdown.parse>[number];

const EXTENSIONS: Record<ExportFormat, string> = { markdown: "md", html: "html", pdf: "pdf" };

/** A file name from the title: letters, digits, dot, dash and underscore; never empty. */
export function exportFileName(title: string, format: ExportFormat): string {
  const base =
    title
      .normalize("NFKD")
      .replace(/[^\w.-]+/g, "-")
      .replace(/^[-.]+|[-.]+$/g, "")
      .slice(0, 100) || "document";
  return `${base}.${EXTENSIONS[format]}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A whole HTML page: the title escaped, markdown rendered with raw HTML disabled (plain text in <pre>). */
export function renderDocumentHtml(document: { title: string; content: string; format: "markdown" | "text" }): string {
  const body = document.format === "markdown" ? markdown.render(document.content) : `<pre>${escapeHtml(document.content)}</pre>\n`;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    // No script runs even if the file is served from an origin: the page allows none.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(document.title)}</title>`,
    "</head>",
    "<body>",
    `<h1>${escapeHtml(document.title)}</h1>`,
    body,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

// The fonts pdfmake ships (Roboto: Latin, Greek, Cyrillic and common symbols), read from its package;
// they are the only local files pdfmake may open, and it may fetch no URL at all.
//
// Loaded with require and typed here: @types/pdfmake declares the DOM library for the whole program
// (its browser half), which would change the types of code that must not see it.
interface PdfMake {
  setFonts(fonts: Record<string, { normal: string; bold: string; italics: string; bolditalics: string }>): void;
  setUrlAccessPolicy(callback: (url: string) => boolean): void;
  setLocalAccessPolicy(callback: (path: string) => boolean): void;
  createPdf(docDefinition: Record<string, unknown>): { getBuffer(): Promise<Buffer> };
}
const require = createRequire(import.meta.url);
const pdfmake = require("pdfmake") as PdfMake;
const fontDirectory = path.join(path.dirname(require.resolve("pdfmake/package.json")), "fonts", "Roboto");
const FONTS = {
  Roboto: {
    normal: path.join(fontDirectory, "Roboto-Regular.ttf"),
    bold: path.join(fontDirectory, "Roboto-Medium.ttf"),
    italics: path.join(fontDirectory, "Roboto-Italic.ttf"),
    bolditalics: path.join(fontDirectory, "Roboto-MediumItalic.ttf"),
  },
};
const ALLOWED_LOCAL_FILES = new Set(Object.values(FONTS.Roboto));
pdfmake.setFonts(FONTS);
pdfmake.setUrlAccessPolicy(() => false);
pdfmake.setLocalAccessPolicy((file) => ALLOWED_LOCAL_FILES.has(file));

type PdfInline = string | { text: string | PdfInline[]; bold?: boolean; italics?: boolean; font?: string; color?: string; decoration?: string };
type PdfNode = Record<string, unknown>;

/** Inline tokens to pdfmake text runs. Links stay text with their target; images become their alt text and URL (nothing is fetched). */
function inlineRuns(tokens: readonly Token[]): PdfInline[] {
  const runs: PdfInline[] = [];
  let bold = 0;
  let italics = 0;
  const pendingLinks: string[] = [];
  const push = (text: string, extra: Partial<Exclude<PdfInline, string>> = {}) => {
    if (text === "") return;
    runs.push({ text, ...(bold > 0 ? { bold: true } : {}), ...(italics > 0 ? { italics: true } : {}), ...extra });
  };
  for (const token of tokens) {
    switch (token.type) {
      case "text":
        push(token.content);
        break;
      case "code_inline":
        push(token.content, { color: "#444444", background: "#eeeeee" } as Partial<Exclude<PdfInline, string>>);
        break;
      case "softbreak":
        push(" ");
        break;
      case "hardbreak":
        push("\n");
        break;
      case "strong_open":
        bold += 1;
        break;
      case "strong_close":
        bold -= 1;
        break;
      case "em_open":
        italics += 1;
        break;
      case "em_close":
        italics -= 1;
        break;
      case "s_open":
      case "s_close":
        break;
      case "link_open":
        pendingLinks.push(String(token.attrGet("href") ?? ""));
        break;
      case "link_close": {
        const href = pendingLinks.pop();
        if (href) push(` (${href})`, { color: "#555555" });
        break;
      }
      case "image":
        push(`[image: ${token.content}${token.attrGet("src") ? ` (${String(token.attrGet("src"))})` : ""}]`, { italics: true });
        break;
      default:
        if (token.content) push(token.content);
    }
  }
  return runs;
}

const HEADING_SIZES: Record<string, number> = { h1: 20, h2: 17, h3: 15, h4: 13, h5: 12, h6: 11 };

/**
 * Markdown to pdfmake's document content: headings, paragraphs, lists, quotes, code and rules as
 * styled text. Built from markdown-it's tokens (the same parse as the HTML), never from HTML.
 */
function markdownToPdfContent(source: string): PdfNode[] {
  const tokens = markdown.parse(source, {});
  const root: PdfNode[] = [];
  // Containers being filled: lists (their items) and blockquotes; the top is where blocks go.
  const stack: { kind: "list" | "item" | "quote"; nodes: PdfNode[]; ordered?: boolean }[] = [];
  const target = () => stack.at(-1)?.nodes ?? root;
  let heading: string | null = null;
  for (const token of tokens) {
    switch (token.type) {
      case "heading_open":
        heading = token.tag;
        break;
      case "heading_close":
        heading = null;
        break;
      case "inline": {
        const runs = inlineRuns(token.children ?? []);
        if (heading) target().push({ text: runs, bold: true, fontSize: HEADING_SIZES[heading] ?? 12, margin: [0, 8, 0, 4] });
        else target().push({ text: runs, margin: [0, 0, 0, 6] });
        break;
      }
      case "bullet_list_open":
      case "ordered_list_open":
        stack.push({ kind: "list", nodes: [], ordered: token.type === "ordered_list_open" });
        break;
      case "bullet_list_close":
      case "ordered_list_close": {
        const list = stack.pop();
        if (list) target().push(list.ordered ? { ol: list.nodes, margin: [0, 0, 0, 6] } : { ul: list.nodes, margin: [0, 0, 0, 6] });
        break;
      }
      case "list_item_open":
        stack.push({ kind: "item", nodes: [] });
        break;
      case "list_item_close": {
        const item = stack.pop();
        if (item) target().push({ stack: item.nodes });
        break;
      }
      case "blockquote_open":
        stack.push({ kind: "quote", nodes: [] });
        break;
      case "blockquote_close": {
        const quote = stack.pop();
        if (quote) target().push({ stack: quote.nodes, italics: true, color: "#555555", margin: [16, 0, 0, 6] });
        break;
      }
      case "fence":
      case "code_block":
        target().push({ text: token.content.replace(/\n$/, ""), color: "#333333", fontSize: 9, preserveLeadingSpaces: true, margin: [8, 0, 0, 6] });
        break;
      case "hr":
        target().push({ canvas: [{ type: "line", x1: 0, y1: 4, x2: 515, y2: 4, lineWidth: 0.5, lineColor: "#999999" }], margin: [0, 4, 0, 8] });
        break;
      default:
        break;
    }
  }
  return root;
}

/** A PDF made in-process (pdfmake, its bundled fonts): no browser, no file read but the fonts, no URL fetched. */
export async function renderDocumentPdf(document: { title: string; content: string; format: "markdown" | "text" }): Promise<Buffer> {
  // Plain text: one node per line (pdfmake lays a single huge text node out in quadratic time).
  const content =
    document.format === "markdown"
      ? markdownToPdfContent(document.content)
      : document.content.split("\n").map((line) => ({ text: line === "" ? " " : line, preserveLeadingSpaces: true }));
  return pdfmake
    .createPdf({
      info: { title: document.title },
      pageSize: "A4",
      defaultStyle: { font: "Roboto", fontSize: 10.5, lineHeight: 1.2 },
      content: [{ text: document.title, bold: true, fontSize: 22, margin: [0, 0, 0, 12] }, ...content],
    })
    .getBuffer();
}

/** The document as a file of the format: Markdown as stored, HTML (inert), or PDF. */
export async function exportDocument(
  document: { title: string; content: string; format: "markdown" | "text" },
  format: ExportFormat,
): Promise<ExportedDocument> {
  const filename = exportFileName(document.title, format);
  switch (format) {
    case "markdown":
      return { body: Buffer.from(document.content, "utf8"), contentType: "text/markdown; charset=utf-8", filename };
    case "html":
      return { body: Buffer.from(renderDocumentHtml(document), "utf8"), contentType: "text/html; charset=utf-8", filename };
    case "pdf":
      return { body: await renderDocumentPdf(document), contentType: "application/pdf", filename };
  }
}
