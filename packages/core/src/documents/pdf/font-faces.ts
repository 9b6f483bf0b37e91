import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { create, type Font } from "fontkit";

export const FONT_STYLES = ["regular", "bold", "italic", "boldItalic", "mono"] as const;
export type FontStyle = (typeof FONT_STYLES)[number];

// DejaVu (Bitstream Vera licence: free to embed) covers Latin, Greek, Cyrillic and the symbols people
// paste (€ — ✓ → •), which Roboto does not all have. These five files, read from the dejavu-fonts-ttf
// package, are the only files a PDF export opens.
const FONT_FILES: Record<FontStyle, string> = {
  regular: "DejaVuSans.ttf",
  bold: "DejaVuSans-Bold.ttf",
  italic: "DejaVuSans-Oblique.ttf",
  boldItalic: "DejaVuSans-BoldOblique.ttf",
  mono: "DejaVuSansMono.ttf",
};

export interface FontGlyph {
  /** The glyph in the font file; 0 (.notdef, a box) when the font has no glyph for the character. */
  glyphId: number;
  /** Advance width in thousandths of the font size, rounded: the unit of a PDF font's /W array. */
  width: number;
}

/** A font file parsed once per process, with its character metrics cached as they are asked for. */
export interface FontFace {
  readonly style: FontStyle;
  readonly font: Font;
  glyphFor(codePoint: number): FontGlyph;
}

const faces = new Map<FontStyle, FontFace>();

function loadFontFace(style: FontStyle): FontFace {
  const require = createRequire(import.meta.url);
  const directory = path.join(path.dirname(require.resolve("dejavu-fonts-ttf/package.json")), "ttf");
  const font = create(readFileSync(path.join(directory, FONT_FILES[style]))) as Font;
  const scale = 1000 / font.unitsPerEm;
  // Bounded by the number of distinct characters ever exported, a few thousand in practice.
  const glyphs = new Map<number, FontGlyph>();
  return {
    style,
    font,
    glyphFor(codePoint) {
      let glyph = glyphs.get(codePoint);
      if (glyph === undefined) {
        const found = font.hasGlyphForCodePoint(codePoint) ? font.glyphForCodePoint(codePoint) : undefined;
        const glyphId = found?.id ?? 0;
        glyph = { glyphId, width: Math.round((found?.advanceWidth ?? font.getGlyph(0).advanceWidth) * scale) };
        glyphs.set(codePoint, glyph);
      }
      return glyph;
    },
  };
}

/** The face of a style, loaded on first use (a PDF export that never goes italic never reads the italic file). */
export function fontFace(style: FontStyle): FontFace {
  let face = faces.get(style);
  if (face === undefined) {
    face = loadFontFace(style);
    faces.set(style, face);
  }
  return face;
}
