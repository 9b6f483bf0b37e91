// Sections cycle through every block the exporters handle, with words in Greek and Cyrillic and the
// symbols people paste (€ — ✓), so a large document exercises fonts and layout as a real one would.
const SECTION_TEMPLATES: readonly ((index: number) => string)[] = [
  (index) =>
    `## Section ${index}: planning notes\n\nA paragraph with **bold** and *italic* words, a [link](https://example.com/${index}) and \`inline code\`. ` +
    "The budget grows by 12 € this quarter — every line item is checked ✓ before the review, and the team writes down what changed, why it changed, " +
    "and who agreed to it, so that the next reader does not have to guess.\n\n",
  (index) =>
    `### Tasks for week ${index}\n\n- Draft the proposal and share it with the group\n- Review the numbers ✓\n  - nested: confirm the totals\n  - nested: check the rounding\n` +
    "- Send the summary\n\n1. First ordered step\n2. Second ordered step with a longer sentence that has to wrap onto the next line of the page when it is laid out\n3. Third step\n\n",
  (index) =>
    `> Quoted remark ${index}: the Greek word λόγος and the Russian word привет appear in the minutes, as does the phrase «добрый день».\n\n` +
    "```ts\n" +
    `function total${index}(items: number[]): number {\n  // Sum the line items; the result is in €.\n  return items.reduce((sum, item) => sum + item, 0);\n}\n` +
    "```\n\n",
  (index) =>
    `#### Details ${index}\n\nΑυτή είναι μια παράγραφος στα ελληνικά, και это абзац на русском языке, mixed with English text about item ${index}. ` +
    "Ordinary prose follows: the quick brown fox jumps over the lazy dog, again and again, until the paragraph is long enough to span several lines. " +
    "***Bold italic*** text and ~~struck~~ words close it.\n\n---\n\n",
];

/** Realistic Markdown of at least `minimumBytes` in UTF-8: headings, paragraphs, lists, quotes, code, links, non-Latin text. */
export function largeMarkdownDocument(minimumBytes: number): string {
  const sections: string[] = ["# Large document\n\nFIRST-PARAGRAPH-MARKER opens the document.\n\n"];
  let bytes = Buffer.byteLength(sections.join(""));
  for (let index = 0; bytes < minimumBytes; index += 1) {
    const section = SECTION_TEMPLATES[index % SECTION_TEMPLATES.length]?.(index) ?? "";
    sections.push(section);
    bytes += Buffer.byteLength(section);
  }
  sections.push("The LAST-PARAGRAPH-MARKER closes the document.\n");
  return sections.join("");
}
