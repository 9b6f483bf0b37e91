import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A piece of text as poppler's pdftohtml sees it, in points from the page's top left. */
export interface PdfTextBox {
  page: number;
  text: string;
  left: number;
  top: number;
  width: number;
  height: number;
  /** Font size in points, rounded by poppler. */
  size: number;
  /** The embedded font's name, e.g. "ABCDEF+DejaVuSansMono". */
  family: string;
  bold: boolean;
  italic: boolean;
  /** The target of the link annotation over the text, if any. */
  link?: string;
}

export interface ReadPdf {
  /** pdftotext's reading of the whole file: pages are separated by form feeds. */
  text: string;
  /** What the poppler tools complained about: empty for a well-formed file. */
  warnings: string;
  pages: { width: number; height: number }[];
  boxes: PdfTextBox[];
  /** The bookmarks, in order, with their nesting depth (0 for the top level) and page. */
  outline: { title: string; page: number; depth: number }[];
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_match, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/**
 * A PDF read back by poppler (pdftotext and pdftohtml, from Debian's poppler-utils): what a reader
 * copies out of it and where each piece of text sits, to test exports against an independent reader.
 */
export async function readPdf(bytes: Buffer): Promise<ReadPdf> {
  const directory = await mkdtemp(path.join(tmpdir(), "agentq-read-pdf-"));
  try {
    const file = path.join(directory, "document.pdf");
    await writeFile(file, bytes);
    const [text, xml] = await Promise.all([
      run("pdftotext", ["-enc", "UTF-8", file, "-"], { maxBuffer: 256 * 1024 * 1024 }),
      run("pdftohtml", ["-xml", "-i", "-stdout", "-zoom", "1", "-enc", "UTF-8", file], { maxBuffer: 256 * 1024 * 1024 }),
    ]);
    const fonts = new Map<string, { size: number; family: string }>();
    for (const match of xml.stdout.matchAll(/<fontspec id="(\d+)" size="([\d.-]+)" family="([^"]*)"/g)) {
      fonts.set(match[1] ?? "", { size: Number(match[2]), family: match[3] ?? "" });
    }
    const pages: ReadPdf["pages"] = [];
    const boxes: PdfTextBox[] = [];
    // Pages and text elements in document order: a text element belongs to the last page opened.
    for (const match of xml.stdout.matchAll(
      /<page number="\d+"[^>]* height="([\d.]+)" width="([\d.]+)">|<text top="([\d.-]+)" left="([\d.-]+)" width="([\d.-]+)" height="([\d.-]+)" font="(\d+)">(.*?)<\/text>/g,
    )) {
      if (match[1] !== undefined) {
        pages.push({ height: Number(match[1]), width: Number(match[2]) });
        continue;
      }
      const inner = match[8] ?? "";
      const font = fonts.get(match[7] ?? "") ?? { size: 0, family: "" };
      const link = /<a href="([^"]*)"/.exec(inner)?.[1];
      boxes.push({
        page: pages.length,
        text: decodeEntities(inner.replace(/<[^>]+>/g, "")),
        top: Number(match[3]),
        left: Number(match[4]),
        width: Number(match[5]),
        height: Number(match[6]),
        size: font.size,
        family: font.family,
        bold: inner.includes("<b>"),
        italic: inner.includes("<i>"),
        ...(link !== undefined ? { link: decodeEntities(link) } : {}),
      });
    }
    const outline: ReadPdf["outline"] = [];
    let depth = -1;
    for (const match of xml.stdout.matchAll(/<outline>|<\/outline>|<item page="(\d+)">(.*?)<\/item>/g)) {
      if (match[0] === "<outline>") depth += 1;
      else if (match[0] === "</outline>") depth -= 1;
      else outline.push({ title: decodeEntities(match[2] ?? ""), page: Number(match[1]), depth });
    }
    return { text: text.stdout, warnings: `${text.stderr}${xml.stderr}`, pages, boxes, outline };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * The boxes that reach into a margin of `margin` points, described, except the page number, which
 * belongs centred in the bottom margin: empty when all text stays where it should.
 */
export function textOutsideMargins(pdf: ReadPdf, margin: number): string[] {
  const outside: string[] = [];
  // poppler's boxes are whole points and include the glyphs' overhang: allow a point or two.
  const tolerance = 2;
  for (const box of pdf.boxes) {
    const page = pdf.pages[box.page - 1] ?? { width: 0, height: 0 };
    const isPageNumber = box.top > page.height - margin && box.text === String(box.page);
    if (isPageNumber) continue;
    if (
      box.left < margin - tolerance ||
      box.left + box.width > page.width - margin + tolerance ||
      box.top < margin - tolerance ||
      box.top + box.height > page.height - margin + tolerance
    ) {
      outside.push(`${JSON.stringify(box.text)} at ${box.left},${box.top} (${box.width}×${box.height}) on page ${box.page}`);
    }
  }
  return outside;
}
