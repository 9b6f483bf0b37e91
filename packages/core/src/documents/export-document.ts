export const EXPORT_FORMATS = ["markdown", "html", "pdf"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportedDocument {
  body: Buffer;
  contentType: string;
  /** A file name for the download: the title made safe, with the format's extension. */
  filename: string;
}

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

/**
 * The document as a file of the format: Markdown as stored, HTML (inert), or PDF. The renderers
 * (markdown-it, the PDF writer and its fonts) are imported on the first export that needs them, so
 * the API and the worker do not hold them in memory until someone exports.
 */
export async function exportDocument(
  document: { title: string; content: string; format: "markdown" | "text" },
  format: ExportFormat,
): Promise<ExportedDocument> {
  const filename = exportFileName(document.title, format);
  switch (format) {
    case "markdown":
      return { body: Buffer.from(document.content, "utf8"), contentType: "text/markdown; charset=utf-8", filename };
    case "html": {
      const { renderDocumentHtml } = await import("./render-document-html.ts");
      return { body: Buffer.from(renderDocumentHtml(document), "utf8"), contentType: "text/html; charset=utf-8", filename };
    }
    case "pdf": {
      const { renderDocumentPdf } = await import("./pdf/render-document-pdf.ts");
      return { body: await renderDocumentPdf(document), contentType: "application/pdf", filename };
    }
  }
}
