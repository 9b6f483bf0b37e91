import type { FlowedLine } from "./flow-text.ts";
import { type PdfFileWriter, pdfLiteral } from "./pdf-file-writer.ts";
import type { PdfFont } from "./pdf-font.ts";

// A4 in points, with margins of 2 cm.
const PAGE_WIDTH = 595.28;
const PAGE_HEIGHT = 841.89;
const MARGIN = 56.69;

/** A number for a content stream: two decimals at most, no exponent. */
export function pdfNumber(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** A PDF string of ASCII text: markdown-it percent-encodes link targets, and anything else left is escaped. */
function pdfAsciiString(text: string): string {
  const ascii = text.replace(/[^\x20-\x7e]/gu, (character) =>
    character.length === 1 && /[\ud800-\udfff]/.test(character) ? "%EF%BF%BD" : encodeURIComponent(character),
  );
  return pdfLiteral(ascii);
}

/**
 * Pages filled from top to bottom. Blocks reserve their height (a new page starts when it does not
 * fit), then draw inside what they reserved; each page's content stream is written as soon as the
 * page is full, so a long document never holds all its pages' operators at once.
 */
export class PageLayout {
  readonly left = MARGIN;
  readonly right = PAGE_WIDTH - MARGIN;
  readonly top = PAGE_HEIGHT - MARGIN;
  readonly bottom = MARGIN;
  private cursor = this.top;
  private operators: string[] = [];
  // Link annotations of the current page, written inline in its /Annots.
  private links: string[] = [];
  // Allocated when first asked for (or when the page is written), so no number is left unwritten.
  private pageObjectNumber: number | undefined;
  private currentFont: PdfFont | null = null;
  private currentSize = 0;
  private currentColor = "";
  readonly pageObjectNumbers: number[] = [];

  constructor(
    private readonly writer: PdfFileWriter,
    private readonly parentNumber: number,
    private readonly resourcesNumber: number,
    /** The body font: page numbers are set in it, and its ascent and descent place a baseline in its line box. */
    private readonly bodyFont: () => PdfFont,
  ) {}

  get contentWidth(): number {
    return this.right - this.left;
  }

  /** The height of a page's writable area: a block taller than this cannot be kept on one page. */
  get pageBodyHeight(): number {
    return this.top - this.bottom;
  }

  /** Room for `height` points: starts a page unless they fit (or the page is still empty). Returns the top of the room. */
  reserve(height: number): number {
    this.keep(height);
    const top = this.cursor;
    this.cursor -= height;
    return top;
  }

  /** Starts a page unless `height` points still fit: keeps a heading with the lines after it. */
  keep(height: number): void {
    if (this.cursor - height < this.bottom && this.cursor < this.top) this.newPage();
  }

  /** Vertical space between blocks; none at the top of a page. */
  gap(height: number): void {
    if (this.cursor < this.top) this.cursor = Math.max(this.cursor - height, this.bottom);
  }

  /** The baseline of text of `size` in a line box of `lineHeight` whose top is `top`. */
  baseline(top: number, size: number, lineHeight: number): number {
    const { ascent, descent } = this.bodyFont();
    return top - (lineHeight - (ascent + descent) * size) / 2 - ascent * size;
  }

  drawLine(line: FlowedLine, x: number, baseline: number): void {
    if (line.fragments.length === 0) return;
    for (const fragment of line.fragments) {
      const { run } = fragment;
      if (run.background !== undefined) {
        const { ascent, descent } = run.font;
        this.operators.push(
          `${run.background} ${pdfNumber(x + fragment.x - 1)} ${pdfNumber(baseline - descent * run.size - 0.5)} ${pdfNumber(fragment.width + 2)} ${pdfNumber((ascent + descent) * run.size + 1)} re f`,
        );
        this.currentColor = "";
      }
    }
    // One text object per line: after each Tj the position moves by the glyphs' widths (the font's
    // /W, the same widths the layout used), so fragments need no positioning of their own.
    let text = `BT ${pdfNumber(x)} ${pdfNumber(baseline)} Td`;
    for (const fragment of line.fragments) {
      const { run } = fragment;
      if (run.font !== this.currentFont || run.size !== this.currentSize) {
        text += ` /${run.font.resourceName} ${pdfNumber(run.size)} Tf`;
        this.currentFont = run.font;
        this.currentSize = run.size;
      }
      if (run.color !== this.currentColor) {
        text += ` ${run.color}`;
        this.currentColor = run.color;
      }
      text += ` <${fragment.hex}> Tj`;
    }
    this.operators.push(`${text} ET`);
    for (const fragment of line.fragments) {
      if (fragment.run.link !== undefined) {
        const { size, link, font } = fragment.run;
        const rectangle = [x + fragment.x, baseline - font.descent * size, x + fragment.x + fragment.width, baseline + font.ascent * size]
          .map(pdfNumber)
          .join(" ");
        this.links.push(`<< /Type /Annot /Subtype /Link /Rect [${rectangle}] /Border [0 0 0] /A << /S /URI /URI ${pdfAsciiString(link)} >> >>`);
      }
      if (fragment.run.strike)
        this.fillRectangle(x + fragment.x, baseline + 0.3 * fragment.run.size, fragment.width, 0.05 * fragment.run.size + 0.2, fragment.run.color);
    }
  }

  fillRectangle(x: number, y: number, width: number, height: number, color: string): void {
    this.operators.push(`${color} ${pdfNumber(x)} ${pdfNumber(y)} ${pdfNumber(width)} ${pdfNumber(height)} re f`);
    this.currentColor = "";
  }

  /** Ends the document's last page and returns every page's object number, in order. */
  finish(): number[] {
    this.writePage();
    return this.pageObjectNumbers;
  }

  /** The object number of the page being filled: where a heading's bookmark points. */
  get currentPageObjectNumber(): number {
    this.pageObjectNumber ??= this.writer.allocate();
    return this.pageObjectNumber;
  }

  private newPage(): void {
    this.writePage();
    this.cursor = this.top;
    this.currentFont = null;
    this.currentSize = 0;
    this.currentColor = "";
  }

  private writePage(): void {
    const label = String(this.pageObjectNumbers.length + 1);
    const footer = this.bodyFont();
    const encoded = footer.encode(label);
    const size = 8;
    const x = (PAGE_WIDTH - (encoded.width * size) / 1000) / 2;
    this.operators.push(`BT /${footer.resourceName} ${size} Tf 0.45 g ${pdfNumber(x)} ${pdfNumber(MARGIN / 2)} Td <${encoded.hex}> Tj ET`);

    const page = this.currentPageObjectNumber;
    const contents = this.writer.allocate();
    this.writer.stream(contents, "", this.operators.join("\n"));
    this.writer.object(
      page,
      `<< /Type /Page /Parent ${this.parentNumber} 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources ${this.resourcesNumber} 0 R /Contents ${contents} 0 R` +
        `${this.links.length > 0 ? ` /Annots [${this.links.join(" ")}]` : ""} >>`,
    );
    this.pageObjectNumbers.push(page);
    this.pageObjectNumber = undefined;
    this.links = [];
    this.operators = [];
  }
}
