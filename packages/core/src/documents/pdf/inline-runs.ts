import type { FontStyle } from "./font-faces.ts";
import { type FlowItem, LINE_BREAK, type TextRun } from "./flow-text.ts";
import type { PdfFonts } from "./pdf-fonts.ts";
import type { MarkdownToken } from "../markdown-parser.ts";

const LINK_COLOR = "0.1 0.3 0.65 rg";
const URL_COLOR = "0.4 g";
const CODE_COLOR = "0.2 g";
const CODE_BACKGROUND = "0.93 g";
// Links a reader's PDF viewer may open when clicked (the server never opens them). markdown-it has
// already refused javascript:, vbscript:, file: and data: targets; anything else unusual stays text.
const CLICKABLE_LINK = /^(?:https?:|mailto:)/i;

/** The style a block gives its text before any emphasis: headings are bold, quotes italic and grey. */
export interface InlineBase {
  size: number;
  color: string;
  bold?: boolean;
  italic?: boolean;
}

function styleOf(bold: boolean, italic: boolean): FontStyle {
  if (bold) return italic ? "boldItalic" : "bold";
  return italic ? "italic" : "regular";
}

/**
 * markdown-it's inline tokens as styled runs. A link keeps its text and prints its target after it
 * (unless the text is the target); an image becomes its alt text and URL: nothing is fetched or read.
 */
export function inlineRuns(tokens: readonly MarkdownToken[], base: InlineBase, fonts: PdfFonts): FlowItem[] {
  const items: FlowItem[] = [];
  let bold = base.bold ? 1 : 0;
  let italic = base.italic ? 1 : 0;
  let strike = 0;
  const links: { href: string; text: string }[] = [];
  const push = (text: string, overrides: Partial<TextRun> & { style?: FontStyle } = {}) => {
    if (text === "") return;
    const { style, ...rest } = overrides;
    const run: TextRun = {
      text: text.replace(/[\t\n]/g, " "),
      font: fonts.get(style ?? styleOf(bold > 0, italic > 0)),
      size: base.size,
      color: links.length > 0 ? LINK_COLOR : base.color,
      ...rest,
    };
    const innermost = links.at(-1);
    if (innermost !== undefined && run.link === undefined && CLICKABLE_LINK.test(innermost.href)) run.link = innermost.href;
    if (strike > 0) run.strike = true;
    for (const open of links) open.text += text;
    items.push(run);
  };
  for (const token of tokens) {
    switch (token.type) {
      case "text":
        push(token.content);
        break;
      case "code_inline":
        push(token.content, { style: "mono", size: base.size * 0.92, color: CODE_COLOR, background: CODE_BACKGROUND });
        break;
      case "softbreak":
        push(" ");
        break;
      case "hardbreak":
        items.push(LINE_BREAK);
        break;
      case "strong_open":
        bold += 1;
        break;
      case "strong_close":
        bold -= 1;
        break;
      case "em_open":
        italic += 1;
        break;
      case "em_close":
        italic -= 1;
        break;
      case "s_open":
        strike += 1;
        break;
      case "s_close":
        strike -= 1;
        break;
      case "link_open":
        links.push({ href: String(token.attrGet("href") ?? ""), text: "" });
        break;
      case "link_close": {
        const link = links.pop();
        if (link && link.href !== "" && link.href !== link.text && link.href !== `mailto:${link.text}`) {
          push(` (${link.href})`, { style: "regular", color: URL_COLOR, ...(CLICKABLE_LINK.test(link.href) ? { link: link.href } : {}) });
        }
        break;
      }
      case "image": {
        const source = token.attrGet("src");
        push(`[image: ${token.content}${source ? ` (${source})` : ""}]`, { style: "italic", color: URL_COLOR });
        break;
      }
      default:
        if (token.content) push(token.content);
    }
  }
  return items;
}
