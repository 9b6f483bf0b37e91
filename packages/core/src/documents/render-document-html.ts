import { markdownParser } from "./markdown-parser.ts";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A whole HTML page: the title escaped, markdown rendered with raw HTML disabled (plain text in <pre>). */
export function renderDocumentHtml(document: { title: string; content: string; format: "markdown" | "text" }): string {
  const body = document.format === "markdown" ? markdownParser.render(document.content) : `<pre>${escapeHtml(document.content)}</pre>\n`;
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
