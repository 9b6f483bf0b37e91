import { type PdfFileWriter, pdfTextString } from "./pdf-file-writer.ts";

/** A heading as a bookmark: its level (1 for h1), its text, and where its first line is. */
export interface OutlineEntry {
  level: number;
  title: string;
  pageObjectNumber: number;
  top: number;
}

interface OutlineNode {
  entry: OutlineEntry;
  objectNumber: number;
  children: OutlineNode[];
}

/**
 * The document outline (the bookmarks a viewer shows beside the pages): headings nested by level,
 * the top level open and the rest closed, so a long document's thousands of headings start as a
 * short list. Returns the outline root's object number, or null when there are no headings.
 */
export function writeOutline(writer: PdfFileWriter, entries: readonly OutlineEntry[]): number | null {
  if (entries.length === 0) return null;
  const root: OutlineNode[] = [];
  const open: OutlineNode[] = [];
  for (const entry of entries) {
    const node: OutlineNode = { entry, objectNumber: writer.allocate(), children: [] };
    // A heading goes under the nearest open heading of a lower level (an h3 after an h1 goes under the h1).
    while (open.length > 0 && (open.at(-1)?.entry.level ?? 0) >= entry.level) open.pop();
    (open.at(-1)?.children ?? root).push(node);
    open.push(node);
  }
  const rootNumber = writer.allocate();
  // /Count: how many items show under an item (or the root) as it starts; negative when closed.
  const writeLevel = (nodes: readonly OutlineNode[], parent: number, depth: number) => {
    nodes.forEach((node, index) => {
      const { entry, children } = node;
      const links = [
        `/Parent ${parent} 0 R`,
        index > 0 ? `/Prev ${nodes[index - 1]?.objectNumber} 0 R` : "",
        index + 1 < nodes.length ? `/Next ${nodes[index + 1]?.objectNumber} 0 R` : "",
        children.length > 0
          ? `/First ${children[0]?.objectNumber} 0 R /Last ${children.at(-1)?.objectNumber} 0 R /Count ${depth === 0 ? children.length : -children.length}`
          : "",
      ].filter((link) => link !== "");
      writer.object(
        node.objectNumber,
        `<< /Title ${pdfTextString(entry.title)} ${links.join(" ")} /Dest [${entry.pageObjectNumber} 0 R /XYZ 0 ${Math.round(entry.top + 4)} null] >>`,
      );
      writeLevel(children, node.objectNumber, depth + 1);
    });
  };
  writeLevel(root, rootNumber, 0);
  const visible = root.reduce((sum, node) => sum + 1 + node.children.length, 0);
  writer.object(rootNumber, `<< /Type /Outlines /First ${root[0]?.objectNumber} 0 R /Last ${root.at(-1)?.objectNumber} 0 R /Count ${visible} >>`);
  return rootNumber;
}
