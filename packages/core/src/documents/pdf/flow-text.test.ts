import { describe, expect, it } from "vitest";
import { type FlowedLine, flowPreformattedLine, flowText, LINE_BREAK, type TextRun } from "./flow-text.ts";
import { PdfFileWriter } from "./pdf-file-writer.ts";
import { PdfFont } from "./pdf-font.ts";

const writer = new PdfFileWriter();
const regular = new PdfFont("regular", "F1", writer);
const bold = new PdfFont("bold", "F2", writer);
const mono = new PdfFont("mono", "F5", writer);
const SIZE = 10;

function run(text: string, font = regular): TextRun {
  return { text, font, size: SIZE, color: "0 g" };
}

/** The text of each line, decoded from the fragments' character ids through the font that encoded them. */
function lineTexts(lines: readonly FlowedLine[]): string[] {
  return lines.map((line) => line.fragments.map((fragment) => decode(fragment.run.font, fragment.hex)).join(""));
}

function decode(font: PdfFont, hex: string): string {
  // Each character id is four hex digits; encode() of a single character gives its id.
  const byId = new Map<string, string>();
  for (const character of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?*€✓λ") {
    byId.set(font.encode(character).hex, character);
  }
  let text = "";
  for (let index = 0; index < hex.length; index += 4) text += byId.get(hex.slice(index, index + 4)) ?? "?";
  return text;
}

describe("flowing text into lines", () => {
  it("breaks at spaces, never past the width, and drops the spaces it breaks at", () => {
    const text = "the quick brown fox jumps over the lazy dog ".repeat(6).trim();
    const width = 150;
    const lines = flowText([run(text)], width, SIZE);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(width);
    const texts = lineTexts(lines);
    for (const line of texts) expect(line).toBe(line.trim());
    expect(texts.join(" ")).toBe(text);
  });

  it("fills each line: the next word would not have fitted", () => {
    const lines = flowText([run("aaaa bbbb cccc dddd eeee ffff gggg")], 80, SIZE);
    const space = regular.widthOf(" ", SIZE);
    for (let index = 0; index + 1 < lines.length; index += 1) {
      const nextWord = lineTexts([lines[index + 1] as FlowedLine])[0]?.split(" ")[0] ?? "";
      expect((lines[index] as FlowedLine).width + space + regular.widthOf(nextWord, SIZE)).toBeGreaterThan(80);
    }
  });

  it("keeps a word that changes style in the middle together", () => {
    // "xxxx bold" fits and "xxxx boldness" does not: the break comes before "boldness", not inside it.
    const first = "x".repeat(10);
    const width = regular.widthOf(`${first} bold`, SIZE) + 1;
    const lines = flowText([run(`${first} `), run("bold", bold), run("ness more")], width, SIZE);
    expect(lineTexts(lines)).toEqual([first, "boldness more"]);
    expect(lines[1]?.fragments.map((fragment) => fragment.run.font)).toEqual([bold, regular]);
  });

  it("cuts a word only when it is wider than a line", () => {
    const word = "w".repeat(60);
    const width = 100;
    const lines = flowText([run(`short ${word} end`)], width, SIZE);
    const texts = lineTexts(lines);
    expect(texts[0]).toBe("short");
    for (const middle of texts.slice(1, -1)) expect(middle).toMatch(/^w+$/);
    expect(texts.join("").replace(/ /g, "")).toBe(`short${word}end`);
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(width);
  });

  it("breaks lines where the Markdown has hard breaks, and collapses runs of spaces", () => {
    const lines = flowText([run("one   two"), LINE_BREAK, run("three")], 500, SIZE);
    expect(lineTexts(lines)).toEqual(["one two", "three"]);
  });

  it("merges neighbouring text of one style into one fragment", () => {
    const [line] = flowText([run("many words in one style "), run("and more")], 500, SIZE);
    expect(line?.fragments).toHaveLength(1);
    expect(line?.fragments[0]?.width).toBeCloseTo(regular.widthOf("many words in one style and more", SIZE));
  });

  it("keeps neighbouring links of one style apart, each with its own address", () => {
    const [line] = flowText(
      [
        { ...run("one"), link: "https://a.example/" },
        { ...run("two"), link: "https://b.example/" },
      ],
      500,
      SIZE,
    );
    expect(line?.fragments.map((fragment) => fragment.run.link)).toEqual(["https://a.example/", "https://b.example/"]);
    expect(lineTexts([line as FlowedLine])).toEqual(["onetwo"]);
  });

  it("keeps the spaces of preformatted text and wraps it by character", () => {
    const [single] = flowPreformattedLine(run("  indented  code", mono), 500);
    expect(lineTexts([single as FlowedLine])).toEqual(["  indented  code"]);
    const wrapped = flowPreformattedLine(run("x".repeat(100), mono), 100);
    expect(wrapped.length).toBeGreaterThan(1);
    expect(lineTexts(wrapped).join("")).toBe("x".repeat(100));
    for (const line of wrapped) expect(line.width).toBeLessThanOrEqual(100);
  });
});
