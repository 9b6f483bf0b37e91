import { deflateSync } from "node:zlib";

/**
 * The bytes of a PDF file, object by object: numbers are allocated first (so objects can refer to
 * ones written later), every allocated object must be written once, and finish() adds the
 * cross-reference table. Dictionaries are ASCII (all text goes out as hex), so latin1 is exact.
 */
export class PdfFileWriter {
  private readonly chunks: Buffer[] = [];
  private length = 0;
  private readonly offsets: number[] = [];
  private nextObjectNumber = 1;

  constructor() {
    // The comment of high bytes tells transfer tools the file is binary.
    this.push(Buffer.from("%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n", "latin1"));
  }

  allocate(): number {
    const number = this.nextObjectNumber;
    this.nextObjectNumber += 1;
    return number;
  }

  object(number: number, body: string): void {
    this.offsets[number] = this.length;
    this.push(Buffer.from(`${number} 0 obj\n${body}\nendobj\n`, "latin1"));
  }

  /** A compressed stream object; `entries` are the dictionary's entries other than /Length and /Filter. */
  stream(number: number, entries: string, data: Buffer | Uint8Array | string): void {
    const raw = typeof data === "string" ? Buffer.from(data, "latin1") : data;
    // Level 6 costs about twice level 1 for a few percent of size; pages are most of the work.
    const bytes = deflateSync(raw, { level: 1 });
    this.offsets[number] = this.length;
    this.push(Buffer.from(`${number} 0 obj\n<< ${entries} /Length ${bytes.length} /Filter /FlateDecode >>\nstream\n`, "latin1"));
    this.push(bytes);
    this.push(Buffer.from("\nendstream\nendobj\n", "latin1"));
  }

  finish(rootNumber: number, infoNumber: number): Buffer {
    const count = this.nextObjectNumber;
    const entries = ["0000000000 65535 f \n"];
    for (let number = 1; number < count; number += 1) {
      const offset = this.offsets[number];
      if (offset === undefined) throw new Error(`PDF object ${number} was allocated but never written`);
      entries.push(`${String(offset).padStart(10, "0")} 00000 n \n`);
    }
    const xrefOffset = this.length;
    this.push(
      Buffer.from(
        `xref\n0 ${count}\n${entries.join("")}trailer\n<< /Size ${count} /Root ${rootNumber} 0 R /Info ${infoNumber} 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`,
        "latin1",
      ),
    );
    return Buffer.concat(this.chunks, this.length);
  }

  private push(bytes: Buffer | Uint8Array): void {
    this.chunks.push(bytes as Buffer);
    this.length += bytes.length;
  }
}

/**
 * A PDF text string (/Info, bookmarks): printable ASCII as a literal, anything else as UTF-16BE with
 * its byte order mark, in hex, so any character is exact.
 */
export function pdfTextString(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return pdfLiteral(text);
  return `<FEFF${utf16Hex(text)}>`;
}

/** A literal string of printable ASCII: only backslash and parentheses need escaping. */
export function pdfLiteral(ascii: string): string {
  return `(${ascii.replace(/[\\()]/g, (character) => `\\${character}`)})`;
}

/** The UTF-16BE code units of the text in hex, four digits each. */
export function utf16Hex(text: string): string {
  let hex = "";
  for (let index = 0; index < text.length; index += 1) hex += text.charCodeAt(index).toString(16).padStart(4, "0");
  return hex;
}
