import type { PdfFont } from "./pdf-font.ts";

/** Text in one style. Colours are PDF fill operators ("0 g", "0.1 0.3 0.7 rg"). */
export interface TextRun {
  text: string;
  font: PdfFont;
  size: number;
  color: string;
  /** A box behind the text (inline code), as a fill operator. */
  background?: string;
  strike?: boolean;
  /** A web or mail address the text links to: a clickable area on the page. */
  link?: string;
}

/** A forced line break (Markdown's hard break) between runs. */
export const LINE_BREAK = "line_break";
export type FlowItem = TextRun | typeof LINE_BREAK;

/** Consecutive text of one style on one line, `x` from the line's start, widths in points. */
export interface LineFragment {
  run: TextRun;
  hex: string;
  x: number;
  width: number;
}

export interface FlowedLine {
  fragments: LineFragment[];
  width: number;
  /** The largest font size on the line: the line's height follows it. */
  size: number;
}

interface WordPiece {
  run: TextRun;
  text: string;
  hex: string;
  width: number;
}

class LineBuilder {
  readonly lines: FlowedLine[] = [];
  private fragments: LineFragment[] = [];
  width = 0;
  private size = 0;

  constructor(private readonly defaultSize: number) {}

  append(run: TextRun, hex: string, width: number): void {
    const last = this.fragments.at(-1);
    // Same style: one Tj for both, so a line is a handful of operators rather than one per word.
    // Same link too: a fragment's link annotation covers it whole, with its run's one address.
    if (
      last !== undefined &&
      last.run.font === run.font &&
      last.run.size === run.size &&
      last.run.color === run.color &&
      last.run.background === run.background &&
      last.run.strike === run.strike &&
      last.run.link === run.link
    ) {
      last.hex += hex;
      last.width += width;
    } else {
      this.fragments.push({ run, hex, x: this.width, width });
    }
    this.width += width;
    if (run.size > this.size) this.size = run.size;
  }

  breakLine(): void {
    this.lines.push({ fragments: this.fragments, width: this.width, size: this.size || this.defaultSize });
    this.fragments = [];
    this.width = 0;
    this.size = 0;
  }

  get empty(): boolean {
    return this.fragments.length === 0;
  }
}

/** Each character of the piece, breaking lines wherever the next one would pass the edge: for words wider than a line. */
function appendByCharacter(builder: LineBuilder, piece: { run: TextRun; text: string }, maxWidth: number): void {
  for (const character of piece.text) {
    const encoded = piece.run.font.encode(character);
    const width = (encoded.width * piece.run.size) / 1000;
    if (!builder.empty && builder.width + width > maxWidth) builder.breakLine();
    builder.append(piece.run, encoded.hex, width);
  }
}

/**
 * Lines of at most `maxWidth` points from styled runs: breaks at spaces (runs of spaces count as
 * one, none at a line's start or end), never inside a word that spans styles ("**bold**ness"), and
 * inside a word only when the word alone is wider than a line.
 */
export function flowText(items: readonly FlowItem[], maxWidth: number, defaultSize: number): FlowedLine[] {
  const builder = new LineBuilder(defaultSize);
  let word: WordPiece[] = [];
  let wordWidth = 0;
  let spaceRun: TextRun | null = null;

  const commitWord = () => {
    if (word.length === 0) return;
    if (!builder.empty && spaceRun !== null) {
      const space = spaceRun.font.encode(" ");
      const spaceWidth = (space.width * spaceRun.size) / 1000;
      if (builder.width + spaceWidth + wordWidth > maxWidth) builder.breakLine();
      else builder.append(spaceRun, space.hex, spaceWidth);
    } else if (!builder.empty && builder.width + wordWidth > maxWidth) {
      builder.breakLine();
    }
    if (wordWidth > maxWidth) {
      for (const piece of word) appendByCharacter(builder, piece, maxWidth);
    } else {
      for (const piece of word) builder.append(piece.run, piece.hex, piece.width);
    }
    word = [];
    wordWidth = 0;
    spaceRun = null;
  };

  for (const item of items) {
    if (item === LINE_BREAK) {
      commitWord();
      builder.breakLine();
      continue;
    }
    const parts = item.text.split(" ");
    for (let index = 0; index < parts.length; index += 1) {
      if (index > 0) {
        commitWord();
        spaceRun = item;
      }
      const part = parts[index] ?? "";
      if (part === "") continue;
      const encoded = item.font.encode(part);
      const width = (encoded.width * item.size) / 1000;
      word.push({ run: item, text: part, hex: encoded.hex, width });
      wordWidth += width;
    }
  }
  commitWord();
  if (!builder.empty || builder.lines.length === 0) builder.breakLine();
  return builder.lines;
}

/** One line of preformatted text (code, plain documents): spaces kept, wrapped by character only when wider than `maxWidth`. */
export function flowPreformattedLine(run: TextRun, maxWidth: number): FlowedLine[] {
  const encoded = run.font.encode(run.text);
  const width = (encoded.width * run.size) / 1000;
  const builder = new LineBuilder(run.size);
  if (width <= maxWidth) {
    if (run.text !== "") builder.append(run, encoded.hex, width);
  } else {
    appendByCharacter(builder, { run, text: run.text }, maxWidth);
  }
  builder.breakLine();
  return builder.lines;
}
