import MarkdownIt from "markdown-it";

// html: false escapes every tag of the source, and markdown-it's validateLink refuses javascript:,
// vbscript:, file: and most data: links (they stay as text): the HTML is inert however it is opened.
// The PDF is built from the same parse, so both exports agree on what the Markdown means.
export const markdownParser = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });

export type MarkdownToken = ReturnType<typeof markdownParser.parse>[number];
