import { FONT_STYLES, type FontStyle } from "./font-faces.ts";
import type { PdfFileWriter } from "./pdf-file-writer.ts";
import { PdfFont } from "./pdf-font.ts";

/** The fonts of one PDF, made on first use: only the styles a document uses are embedded. */
export class PdfFonts {
  private readonly fonts = new Map<FontStyle, PdfFont>();

  constructor(private readonly writer: PdfFileWriter) {}

  get(style: FontStyle): PdfFont {
    let font = this.fonts.get(style);
    if (font === undefined) {
      font = new PdfFont(style, `F${FONT_STYLES.indexOf(style) + 1}`, this.writer);
      this.fonts.set(style, font);
    }
    return font;
  }

  /** Writes every font made (each was given an object number, so each is written) and returns the /Font resource entries. */
  write(): string {
    const entries: string[] = [];
    for (const [style, font] of this.fonts) {
      // A subset's name starts with six capital letters of its own: one per style here.
      font.write(this.writer, `AGQPD${String.fromCharCode(65 + FONT_STYLES.indexOf(style))}`);
      entries.push(`/${font.resourceName} ${font.objectNumber} 0 R`);
    }
    return entries.join(" ");
  }
}
