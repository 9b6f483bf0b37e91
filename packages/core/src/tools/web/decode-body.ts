export type BodyKind =
  | { kind: "html"; charset: string | undefined }
  | { kind: "text"; charset: string | undefined }
  | { kind: "unsupported"; mimeType: string };

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
/** Passed through unchanged: text a model reads as well as a human does. */
const TEXT_TYPES = new Set(["text/plain", "text/markdown", "text/x-markdown", "text/csv", "application/json"]);

/**
 * What fetch_page does with a body, from its Content-Type. A missing type is sniffed: markup that
 * opens like HTML is HTML, bytes without NULs are text, anything else is refused as binary.
 */
export function classifyContentType(header: string | undefined, body: Buffer): BodyKind {
  if (header === undefined || header.trim() === "") return sniff(body);
  const [mimeTypePart = "", ...parameters] = header.split(";");
  const mimeType = mimeTypePart.trim().toLowerCase();
  const charset = parameters.map((parameter) => parameter.trim().match(/^charset\s*=\s*"?([^";]+)"?$/i)?.[1]).find((value) => value !== undefined);
  if (HTML_TYPES.has(mimeType)) return { kind: "html", charset: charset ?? metaCharset(body) };
  if (TEXT_TYPES.has(mimeType) || mimeType.endsWith("+json")) return { kind: "text", charset };
  return { kind: "unsupported", mimeType };
}

/** Decodes with the declared charset, falling back to UTF-8 for labels the runtime does not know. */
export function decodeBody(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

function sniff(body: Buffer): BodyKind {
  const head = body.subarray(0, 1024).toString("latin1").trimStart().toLowerCase();
  if (head.startsWith("<!doctype html") || head.startsWith("<html") || head.startsWith("<head") || head.startsWith("<body")) {
    return { kind: "html", charset: metaCharset(body) };
  }
  if (!body.subarray(0, 8192).includes(0)) return { kind: "text", charset: undefined };
  return { kind: "unsupported", mimeType: "binary data without a content type" };
}

function metaCharset(body: Buffer): string | undefined {
  return body
    .subarray(0, 2048)
    .toString("latin1")
    .match(/<meta[^>]+charset\s*=\s*["']?([\w-]+)/i)?.[1];
}
