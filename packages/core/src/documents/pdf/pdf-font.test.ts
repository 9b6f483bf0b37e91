import { describe, expect, it } from "vitest";
import { PdfFileWriter } from "./pdf-file-writer.ts";
import { PdfFont } from "./pdf-font.ts";

describe("a PDF font", () => {
  // A cached encoding comes back as the same object: identity shows what the cache holds.
  it("caches words but not whole lines of code", () => {
    const font = new PdfFont("mono", "F5", new PdfFileWriter());
    expect(font.encode("word")).toBe(font.encode("word"));
    const line = "const values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]; // the line of a code block";
    const first = font.encode(line);
    expect(font.encode(line)).not.toBe(first);
    expect(font.encode(line)).toEqual(first);
  });

  it("lets go of cached words once a document has used very many distinct ones", () => {
    const font = new PdfFont("regular", "F1", new PdfFileWriter());
    const word = font.encode("word");
    for (let index = 0; index < 100_000; index += 1) font.encode(`w${index}`);
    expect(font.encode("word")).not.toBe(word);
    expect(font.encode("word")).toEqual(word);
  });

  it("prints characters past the 65,535 a font can number as .notdef instead of failing", () => {
    const font = new PdfFont("regular", "F1", new PdfFileWriter());
    const characters = distinctCharacters(65_536);
    const ids = characters.map((character) => font.encode(character).hex);
    expect(new Set(ids.slice(0, 65_535)).size).toBe(65_535);
    expect(ids.slice(0, 65_535)).not.toContain("0000");
    expect(ids[65_535]).toBe("0000");
    // Characters numbered before the limit keep their ids.
    expect(font.encode(`${characters[1]}${characters[65_535]}`).hex).toBe(`${ids[1]}0000`);
  });
});

/** `count` distinct characters from "!" upwards, surrogate halves skipped. */
function distinctCharacters(count: number): string[] {
  const characters: string[] = [];
  for (let codePoint = 0x21; characters.length < count; codePoint += 1) {
    if (codePoint < 0xd800 || codePoint > 0xdfff) characters.push(String.fromCodePoint(codePoint));
  }
  return characters;
}
