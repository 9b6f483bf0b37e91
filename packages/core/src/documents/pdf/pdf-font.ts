import { type FontFace, type FontStyle, fontFace } from "./font-faces.ts";
import { type PdfFileWriter, utf16Hex } from "./pdf-file-writer.ts";

/** Strings longer than this (a line of code, a long URL) are encoded each time they come. */
const MAXIMUM_CACHED_LENGTH = 32;
/** Cached strings per font: a few megabytes at most, whatever the document. */
const MAXIMUM_CACHED_TEXTS = 8192;

/** Identity-H character ids are two bytes, and id 0 is .notdef: a font holds 65,535 distinct characters. */
const MAXIMUM_CHARACTER_ID = 0xffff;

/** Text in a font: the hex string of its character ids for a Tj operator, and its width in thousandths of the size. */
export interface EncodedText {
  hex: string;
  width: number;
}

// fontkit's subset returns the new glyph id from includeGlyph (its type declarations say boolean).
interface GlyphSubset {
  includeGlyph(glyphId: number): number;
  encode(): Uint8Array;
}

/**
 * One font of one PDF: an Identity-H CID font whose character ids are given out per distinct code
 * point in order of first use, with a ToUnicode map so text extracts exactly (even characters the
 * font has no glyph for: they show as a box but copy as themselves), and a subset of the TrueType
 * file holding only the glyphs used.
 */
export class PdfFont {
  readonly resourceName: string;
  readonly objectNumber: number;
  /**
   * How far the font reaches above and below the baseline, in ems (both positive), to the thousandth
   * of an em that the font's PDF metrics use (/W, /Ascent, /Descent).
   */
  readonly ascent: number;
  readonly descent: number;
  private readonly face: FontFace;
  private readonly subset: GlyphSubset;
  private readonly idByCodePoint = new Map<number, number>();
  // Indexed by character id; id 0 is .notdef, given only to characters past the last id.
  private readonly codePoints: number[] = [0];
  private readonly subsetGlyphIds: number[] = [0];
  private readonly widths: number[];
  private readonly hexIds: string[] = ["0000"];
  // Words repeat: a document of a million characters has a few thousand distinct ones. Only words:
  // whole lines of code rarely repeat, and caching them would hold a copy of the document.
  private readonly encoded = new Map<string, EncodedText>();

  constructor(style: FontStyle, resourceName: string, writer: PdfFileWriter) {
    this.face = fontFace(style);
    const { ascent, descent, unitsPerEm } = this.face.font;
    this.ascent = Math.round((ascent * 1000) / unitsPerEm) / 1000;
    this.descent = Math.round((-descent * 1000) / unitsPerEm) / 1000;
    this.resourceName = resourceName;
    this.objectNumber = writer.allocate();
    this.subset = this.face.font.createSubset() as unknown as GlyphSubset;
    this.widths = [this.face.glyphFor(0).width];
  }

  encode(text: string): EncodedText {
    const cacheable = text.length <= MAXIMUM_CACHED_LENGTH;
    let result = cacheable ? this.encoded.get(text) : undefined;
    if (result !== undefined) return result;
    let hex = "";
    let width = 0;
    for (let index = 0; index < text.length; index += 1) {
      let codePoint = text.charCodeAt(index);
      if (codePoint >= 0xd800 && codePoint < 0xdc00 && index + 1 < text.length) {
        codePoint = text.codePointAt(index) ?? codePoint;
        if (codePoint > 0xffff) index += 1;
      }
      const id = this.idByCodePoint.get(codePoint) ?? this.addCharacter(codePoint);
      hex += this.hexIds[id];
      width += this.widths[id] ?? 0;
    }
    result = { hex, width };
    if (cacheable) {
      // A document of distinct short strings (numbers, identifiers) starts the cache over rather than growing it.
      if (this.encoded.size >= MAXIMUM_CACHED_TEXTS) this.encoded.clear();
      this.encoded.set(text, result);
    }
    return result;
  }

  /** Width in points of the text at a size. */
  widthOf(text: string, size: number): number {
    return (this.encode(text).width * size) / 1000;
  }

  private addCharacter(codePoint: number): number {
    const id = this.codePoints.length;
    if (id > MAXIMUM_CHARACTER_ID) {
      // Character ids are two bytes. Past the last one a character prints as .notdef (a box, which
      // copies as nothing) rather than failing the export of a document that merely lists many scripts.
      this.idByCodePoint.set(codePoint, 0);
      return 0;
    }
    const glyph = this.face.glyphFor(codePoint);
    this.idByCodePoint.set(codePoint, id);
    this.codePoints.push(codePoint);
    this.subsetGlyphIds.push(glyph.glyphId === 0 ? 0 : this.subset.includeGlyph(glyph.glyphId));
    this.widths.push(glyph.width);
    this.hexIds.push(id.toString(16).padStart(4, "0"));
    return id;
  }

  /** The font's objects: Type0 font, CID font, descriptor, subset file, ToUnicode and CID-to-glyph maps. */
  write(writer: PdfFileWriter, subsetTag: string): void {
    const font = this.face.font;
    const scale = 1000 / font.unitsPerEm;
    const name = `${subsetTag}+${font.postscriptName.replace(/[^A-Za-z0-9-]/g, "")}`;
    const [cidFont, descriptor, fontFile, toUnicode, cidToGid] = [
      writer.allocate(),
      writer.allocate(),
      writer.allocate(),
      writer.allocate(),
      writer.allocate(),
    ];

    writer.stream(fontFile, "", this.subset.encode());
    const map = Buffer.alloc(this.subsetGlyphIds.length * 2);
    for (const [id, glyphId] of this.subsetGlyphIds.entries()) map.writeUInt16BE(glyphId, id * 2);
    writer.stream(cidToGid, "", map);
    writer.stream(toUnicode, "", this.toUnicodeMap());

    const os2 = font["OS/2"];
    // Flags: 4 (symbolic: glyphs are chosen by the embedded maps, not a standard encoding), 1 fixed pitch, 64 italic.
    const flags = 4 | (this.face.style === "mono" ? 1 : 0) | (font.italicAngle !== 0 ? 64 : 0);
    const box = font.bbox;
    const round = (value: number) => Math.round(value * scale);
    writer.object(
      descriptor,
      `<< /Type /FontDescriptor /FontName /${name} /Flags ${flags} /FontBBox [${round(box.minX)} ${round(box.minY)} ${round(box.maxX)} ${round(box.maxY)}] ` +
        `/ItalicAngle ${font.italicAngle} /Ascent ${round(font.ascent)} /Descent ${round(font.descent)} /CapHeight ${round(os2?.capHeight || font.ascent)} ` +
        `/StemV 0 /FontFile2 ${fontFile} 0 R >>`,
    );
    writer.object(
      cidFont,
      `<< /Type /Font /Subtype /CIDFontType2 /BaseFont /${name} /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> ` +
        `/FontDescriptor ${descriptor} 0 R /W [0 [${this.widths.join(" ")}]] /CIDToGIDMap ${cidToGid} 0 R >>`,
    );
    writer.object(
      this.objectNumber,
      `<< /Type /Font /Subtype /Type0 /BaseFont /${name} /Encoding /Identity-H /DescendantFonts [${cidFont} 0 R] /ToUnicode ${toUnicode} 0 R >>`,
    );
  }

  private toUnicodeMap(): string {
    const lines = [
      "/CIDInit /ProcSet findresource begin",
      "12 dict begin",
      "begincmap",
      "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
      "/CMapName /Adobe-Identity-UCS def",
      "/CMapType 2 def",
      "1 begincodespacerange",
      "<0000> <ffff>",
      "endcodespacerange",
    ];
    // A bfchar block holds at most 100 entries.
    for (let start = 1; start < this.codePoints.length; start += 100) {
      const end = Math.min(start + 100, this.codePoints.length);
      lines.push(`${end - start} beginbfchar`);
      for (let id = start; id < end; id += 1) lines.push(`<${this.hexIds[id]}> <${utf16Hex(String.fromCodePoint(this.codePoints[id] ?? 0))}>`);
      lines.push("endbfchar");
    }
    lines.push("endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end");
    return lines.join("\n");
  }
}
