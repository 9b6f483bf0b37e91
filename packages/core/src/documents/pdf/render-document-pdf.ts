import { setImmediate as nextTurn } from "node:timers/promises";
import { type MarkdownToken, markdownParser } from "../markdown-parser.ts";
import { type FlowedLine, flowPreformattedLine, flowText } from "./flow-text.ts";
import { type InlineBase, inlineRuns } from "./inline-runs.ts";
import { PageLayout } from "./page-layout.ts";
import { PdfFileWriter, pdfTextString } from "./pdf-file-writer.ts";
import { PdfFonts } from "./pdf-fonts.ts";
import { type OutlineEntry, writeOutline } from "./pdf-outline.ts";

const BODY_SIZE = 10.5;
const LINE_HEIGHT = 1.45;
const CODE_SIZE = 9;
const CODE_LINE_HEIGHT = 1.35;
const TITLE_SIZE = 21;
const HEADING_SIZES: Record<string, number> = { h1: 19, h2: 16, h3: 13.5, h4: 12, h5: 11, h6: 10.5 };
const TEXT_COLOR = "0 g";
const QUOTE_COLOR = "0.3 g";
const QUOTE_BAR_COLOR = "0.75 g";
const CODE_COLOR = "0.15 g";
const CODE_BACKGROUND = "0.95 g";
const RULE_COLOR = "0.7 g";
const LIST_INDENT = 20;
/** Narrower columns than this would cut most words letter by letter. */
const MINIMUM_COLUMN_WIDTH = 40;
const QUOTE_INDENT = 14;
/** Nesting stops indenting past this share of the width, so deep lists keep room for words. */
const MAXIMUM_INDENT_SHARE = 0.5;
const BULLETS = ["•", "◦", "▪"];

/**
 * Layout runs in the API and worker processes: it hands the event loop back this often, so a large
 * export delays other requests by a few milliseconds at a time rather than for its whole length.
 */
const SLICE_MS = 20;

// Control characters other than tab and newline have no glyph and no meaning on a page.
const CONTROL_CHARACTERS = /[^\P{Cc}\t\n]/gu;

type Container = { kind: "list"; ordered: boolean; next: number; indent: number } | { kind: "quote"; barX: number };

interface PlaceOptions {
  x: number;
  lineHeight: number;
  /** A box behind each line from the block's left edge to the right margin (code). */
  background?: string;
  backgroundX?: number;
}

/** Lays markdown-it's block tokens out on pages: a small block-level renderer over PageLayout. */
class MarkdownPdfRenderer {
  private indent = 0;
  private readonly containers: Container[] = [];
  private pendingMarker: { text: string; contentX: number; ordered: boolean } | null = null;
  private heading: { level: number; size: number } | null = null;
  readonly outline: OutlineEntry[] = [];
  private tightParagraph = false;
  private table: { rows: { header: boolean; cells: ReturnType<typeof inlineRuns>[] }[] } | null = null;
  private sliceStarted = performance.now();

  constructor(
    private readonly layout: PageLayout,
    private readonly fonts: PdfFonts,
  ) {}

  private get x(): number {
    return this.layout.left + this.indent;
  }

  private get width(): number {
    return this.layout.contentWidth - this.indent;
  }

  private get quoteDepth(): number {
    return this.containers.filter((container) => container.kind === "quote").length;
  }

  title(text: string): void {
    const lines = flowText([{ text, font: this.fonts.get("bold"), size: TITLE_SIZE, color: TEXT_COLOR }], this.width, TITLE_SIZE);
    this.place(lines, { x: this.x, lineHeight: 1.25 });
    this.layout.gap(10);
  }

  /** Yields to the event loop when this slice of layout has run long enough. */
  private async pause(): Promise<void> {
    if (performance.now() - this.sliceStarted < SLICE_MS) return;
    await nextTurn();
    this.sliceStarted = performance.now();
  }

  async plainText(content: string): Promise<void> {
    const font = this.fonts.get("mono");
    for (const line of content.split("\n")) {
      await this.pause();
      this.place(flowPreformattedLine({ text: line.replace(/\t/g, "    "), font, size: CODE_SIZE + 0.5, color: TEXT_COLOR }, this.width), {
        x: this.x,
        lineHeight: CODE_LINE_HEIGHT,
      });
    }
  }

  async markdown(tokens: readonly MarkdownToken[]): Promise<void> {
    for (let index = 0; index < tokens.length; index += 1) {
      if (index % 64 === 0) await this.pause();
      const token = tokens[index] as MarkdownToken;
      switch (token.type) {
        case "heading_open": {
          const size = HEADING_SIZES[token.tag] ?? BODY_SIZE;
          this.heading = { level: Number(token.tag.slice(1)), size };
          this.layout.gap(size * 0.7);
          // A heading is not left alone at the bottom of a page: it needs room for a few lines after it.
          this.layout.keep(size * 1.3 + 3 * BODY_SIZE * LINE_HEIGHT);
          break;
        }
        case "heading_close":
          this.heading = null;
          this.layout.gap(4);
          break;
        case "paragraph_open":
          this.tightParagraph = token.hidden;
          break;
        case "paragraph_close":
          this.layout.gap(this.tightParagraph ? 2 : 7);
          break;
        case "inline":
          this.inline(token);
          break;
        case "bullet_list_open":
        case "ordered_list_open":
          this.openList(tokens, index);
          break;
        case "bullet_list_close":
        case "ordered_list_close":
          this.close("list");
          if (!this.containers.some((container) => container.kind === "list")) this.layout.gap(5);
          break;
        case "list_item_open": {
          const list = this.containers.findLast((container) => container.kind === "list");
          if (list?.kind === "list") {
            const depth = this.containers.filter((container) => container.kind === "list").length;
            this.pendingMarker = {
              text: list.ordered ? `${list.next}.` : (BULLETS[(depth - 1) % BULLETS.length] ?? "•"),
              contentX: this.x,
              ordered: list.ordered,
            };
            list.next += 1;
          }
          break;
        }
        case "list_item_close":
          this.flushMarker();
          break;
        case "blockquote_open":
          this.containers.push({ kind: "quote", barX: this.x });
          this.indent = Math.min(this.indent + QUOTE_INDENT, this.layout.contentWidth * MAXIMUM_INDENT_SHARE);
          break;
        case "blockquote_close":
          this.close("quote");
          this.layout.gap(4);
          break;
        case "fence":
        case "code_block":
          this.code(token.content);
          break;
        case "hr":
          this.flushMarker();
          this.rule();
          break;
        case "table_open":
          this.table = { rows: [] };
          break;
        case "tr_open":
          this.table?.rows.push({ header: false, cells: [] });
          break;
        case "th_open": {
          const row = this.table?.rows.at(-1);
          if (row) row.header = true;
          break;
        }
        case "table_close":
          this.renderTable();
          break;
        default:
          break;
      }
    }
  }

  private openList(tokens: readonly MarkdownToken[], index: number): void {
    const token = tokens[index] as MarkdownToken;
    const ordered = token.type === "ordered_list_open";
    const start = ordered ? Number(token.attrGet("start") ?? 1) : 1;
    let indent = LIST_INDENT;
    if (ordered) {
      // Room for the widest number of this list at the left of its items.
      let items = 0;
      for (let next = index + 1; next < tokens.length; next += 1) {
        const candidate = tokens[next] as MarkdownToken;
        if (candidate.level === token.level && candidate.type === "ordered_list_close") break;
        if (candidate.level === token.level + 1 && candidate.type === "list_item_open") items += 1;
      }
      indent = Math.max(LIST_INDENT, this.fonts.get("regular").widthOf(`${start + items}.`, BODY_SIZE) + 6);
    }
    this.flushMarker();
    this.containers.push({ kind: "list", ordered, next: start, indent: this.indent });
    this.indent = Math.min(this.indent + indent, this.layout.contentWidth * MAXIMUM_INDENT_SHARE);
  }

  /** Closes the innermost container of the kind (markdown-it balances its tokens; this would survive if it did not). */
  private close(kind: Container["kind"]): void {
    while (this.containers.length > 0) {
      const container = this.containers.pop();
      if (container?.kind === "list") this.indent = container.indent;
      else if (container?.kind === "quote") this.indent = container.barX - this.layout.left;
      if (container?.kind === kind) return;
    }
  }

  private base(): InlineBase {
    if (this.heading !== null) return { size: this.heading.size, color: TEXT_COLOR, bold: true };
    if (this.quoteDepth > 0) return { size: BODY_SIZE, color: QUOTE_COLOR, italic: true };
    return { size: BODY_SIZE, color: TEXT_COLOR };
  }

  private inline(token: MarkdownToken): void {
    if (this.table) {
      const row = this.table.rows.at(-1);
      if (row) row.cells.push(inlineRuns(token.children ?? [], { size: BODY_SIZE, color: TEXT_COLOR, bold: row.header }, this.fonts));
      return;
    }
    const base = this.base();
    const lines = flowText(inlineRuns(token.children ?? [], base, this.fonts), this.width, base.size);
    const start = this.place(lines, { x: this.x, lineHeight: this.heading !== null ? 1.3 : LINE_HEIGHT });
    if (this.heading !== null && start !== null) {
      const title = (token.children ?? []).map((child) => (child.type === "softbreak" || child.type === "hardbreak" ? " " : child.content)).join("");
      this.outline.push({ level: this.heading.level, title, ...start });
    }
  }

  private code(content: string): void {
    const font = this.fonts.get("mono");
    const padding = 6;
    const lines: FlowedLine[] = [];
    const text = content.endsWith("\n") ? content.slice(0, -1) : content;
    for (const line of text.split("\n")) {
      lines.push(...flowPreformattedLine({ text: line.replace(/\t/g, "    "), font, size: CODE_SIZE, color: CODE_COLOR }, this.width - 2 * padding));
    }
    this.layout.gap(2);
    this.place(lines, { x: this.x + padding, lineHeight: CODE_LINE_HEIGHT, background: CODE_BACKGROUND, backgroundX: this.x });
    this.layout.gap(9);
  }

  private rule(): void {
    const top = this.layout.reserve(14);
    this.layout.fillRectangle(this.x, top - 7, this.width, 0.6, RULE_COLOR);
  }

  /**
   * Places lines one by one (a block may run over pages), with the list marker and quote bars on
   * each. Returns where the first line went.
   */
  private place(lines: readonly FlowedLine[], options: PlaceOptions): { pageObjectNumber: number; top: number } | null {
    const bars = this.containers.flatMap((container) => (container.kind === "quote" ? [container.barX] : []));
    let start: { pageObjectNumber: number; top: number } | null = null;
    for (const line of lines) {
      const lineHeight = line.size * options.lineHeight;
      const top = this.layout.reserve(lineHeight);
      start ??= { pageObjectNumber: this.layout.currentPageObjectNumber, top };
      if (options.background !== undefined) {
        const backgroundX = options.backgroundX ?? options.x;
        this.layout.fillRectangle(backgroundX, top - lineHeight, this.layout.right - backgroundX, lineHeight, options.background);
      }
      for (const barX of bars) this.layout.fillRectangle(barX + 2, top - lineHeight, 2, lineHeight, QUOTE_BAR_COLOR);
      const baseline = this.layout.baseline(top, line.size, lineHeight);
      this.drawMarker(baseline);
      this.layout.drawLine(line, options.x, baseline);
    }
    return start;
  }

  private drawMarker(baseline: number): void {
    if (this.pendingMarker === null) return;
    const { text, contentX, ordered } = this.pendingMarker;
    this.pendingMarker = null;
    const [marker] = flowText([{ text, font: this.fonts.get("regular"), size: BODY_SIZE, color: TEXT_COLOR }], Number.POSITIVE_INFINITY, BODY_SIZE);
    if (marker === undefined) return;
    // Numbers end just before the text; bullets sit a little further left.
    const x = ordered ? contentX - 5 - marker.width : contentX - 12;
    this.layout.drawLine(marker, Math.max(this.layout.left, x), baseline);
  }

  /** A marker whose item starts with no text (an empty item, a rule, a table) gets a line of its own. */
  private flushMarker(): void {
    if (this.pendingMarker === null) return;
    const lineHeight = BODY_SIZE * LINE_HEIGHT;
    const top = this.layout.reserve(lineHeight);
    this.drawMarker(this.layout.baseline(top, BODY_SIZE, lineHeight));
  }

  private renderTable(): void {
    const table = this.table;
    this.table = null;
    if (table === null) return;
    this.flushMarker();
    const columns = table.rows.reduce((widest, row) => Math.max(widest, row.cells.length), 1);
    const columnWidth = this.width / columns;
    const padding = 4;
    if (columnWidth < MINIMUM_COLUMN_WIDTH) {
      // Too many columns to read side by side: each row becomes a line of cells separated by bars.
      const separator = { text: " | ", font: this.fonts.get("regular"), size: BODY_SIZE, color: RULE_COLOR };
      for (const row of table.rows) {
        const items = row.cells.flatMap((cell, column) => (column === 0 ? cell : [separator, ...cell]));
        this.place(flowText(items, this.width, BODY_SIZE), { x: this.x, lineHeight: LINE_HEIGHT });
        this.layout.gap(3);
      }
      this.layout.gap(5);
      return;
    }
    for (const row of table.rows) {
      const cells = row.cells.map((items) => flowText(items, columnWidth - 2 * padding, BODY_SIZE));
      const heights = cells.map((lines) => lines.reduce((sum, line) => sum + line.size * LINE_HEIGHT, 0));
      const rowHeight = Math.max(0, ...heights) + 2 * padding;
      if (rowHeight > this.layout.pageBodyHeight) {
        // A row taller than a page: its cells one after another, as paragraphs.
        for (const lines of cells) this.place(lines, { x: this.x + padding, lineHeight: LINE_HEIGHT });
        continue;
      }
      const top = this.layout.reserve(rowHeight);
      if (row.header) this.layout.fillRectangle(this.x, top - rowHeight, this.width, rowHeight, CODE_BACKGROUND);
      cells.forEach((lines, column) => {
        let lineTop = top - padding;
        for (const line of lines) {
          const lineHeight = line.size * LINE_HEIGHT;
          this.layout.drawLine(line, this.x + column * columnWidth + padding, this.layout.baseline(lineTop, line.size, lineHeight));
          lineTop -= lineHeight;
        }
      });
      this.layout.fillRectangle(this.x, top - rowHeight, this.width, 0.5, RULE_COLOR);
    }
    this.layout.gap(8);
  }
}

/**
 * A PDF written directly, in-process: markdown-it's tokens laid out with the fonts' own metrics,
 * text as hex glyph ids of embedded DejaVu subsets (with ToUnicode, so it copies and searches as
 * written). Nothing in a document makes it read a file or fetch a URL: the only files opened are the
 * bundled fonts; images are printed as their alt text and address; links as text with their target,
 * web and mail ones also clickable (annotations only a reader's viewer may follow).
 */
export async function renderDocumentPdf(document: { title: string; content: string; format: "markdown" | "text" }): Promise<Buffer> {
  const writer = new PdfFileWriter();
  const catalog = writer.allocate();
  const pages = writer.allocate();
  const resources = writer.allocate();
  const info = writer.allocate();
  const fonts = new PdfFonts(writer);
  const layout = new PageLayout(writer, pages, resources, () => fonts.get("regular"));
  const renderer = new MarkdownPdfRenderer(layout, fonts);

  const content = document.content.normalize("NFC").replace(CONTROL_CHARACTERS, "");
  // One title for the page and the file's /Info, so a viewer's title bar shows what the page does.
  const title = document.title.normalize("NFC").replace(CONTROL_CHARACTERS, " ");
  renderer.title(title);
  // markdown-it parses in one go (about 0.15 s a megabyte); the layout after it runs in slices.
  if (document.format === "markdown") await renderer.markdown(markdownParser.parse(content, {}));
  else await renderer.plainText(content);

  const pageNumbers = layout.finish();
  writer.object(pages, `<< /Type /Pages /Kids [${pageNumbers.map((number) => `${number} 0 R`).join(" ")}] /Count ${pageNumbers.length} >>`);
  writer.object(resources, `<< /Font << ${fonts.write()} >> /ProcSet [/PDF /Text] >>`);
  const outline = writeOutline(writer, renderer.outline);
  writer.object(catalog, `<< /Type /Catalog /Pages ${pages} 0 R${outline === null ? "" : ` /Outlines ${outline} 0 R /PageMode /UseOutlines`} >>`);
  writer.object(info, `<< /Title ${pdfTextString(title)} /Producer ${pdfTextString("agentq")} >>`);
  return writer.finish(catalog, info);
}
