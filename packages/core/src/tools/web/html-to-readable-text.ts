import { Readability } from "@mozilla/readability";
import { convert, type HtmlToTextOptions } from "html-to-text";
import { parseHTML } from "linkedom";

export interface ReadablePage {
  title: string;
  text: string;
}

/**
 * Turns a page into the text a reader would see: Readability picks the main content (dropping
 * navigation, ads, footers), html-to-text lays it out with paragraphs, lists, tables and link
 * targets resolved against `baseUrl`. Pages Readability cannot make sense of (short pages, apps)
 * fall back to the whole body.
 */
export function htmlToReadableText(html: string, pageUrl: string): ReadablePage {
  const { document } = parseHTML(html);
  const documentTitle = (document.title ?? "").trim();
  resolveLinks(document, pageUrl);
  const linkedHtml = document.toString();
  let article: ReturnType<Readability["parse"]> = null;
  try {
    article = new Readability(document as never, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  const articleText = article?.content ? convert(article.content, TEXT_OPTIONS).trim() : "";
  const text = articleText !== "" ? articleText : convert(linkedHtml, FALLBACK_OPTIONS).trim();
  const title = (article?.title ?? "").trim() || documentTitle;
  return { title, text: collapseBlankLines(text) };
}

/**
 * Makes every link absolute (against `<base href>` when the page has one) so the model can pass it
 * to fetch_page; html-to-text's own `baseUrl` only prefixes strings. `javascript:` links are dropped.
 */
function resolveLinks(document: ReturnType<typeof parseHTML>["document"], pageUrl: string): void {
  let base = pageUrl;
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  if (baseHref) base = absoluteUrl(baseHref, pageUrl) ?? pageUrl;
  for (const link of document.querySelectorAll("a[href]")) {
    const absolute = absoluteUrl(link.getAttribute("href") ?? "", base);
    if (absolute === undefined || absolute.startsWith("javascript:")) link.removeAttribute("href");
    else link.setAttribute("href", absolute);
  }
}

function absoluteUrl(href: string, base: string): string | undefined {
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return undefined;
  }
}

const TEXT_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
    { selector: "img", format: "skip" },
  ],
};

const FALLBACK_OPTIONS: HtmlToTextOptions = {
  ...TEXT_OPTIONS,
  baseElements: { selectors: ["body"], returnDomByDefault: true },
  selectors: [
    ...(TEXT_OPTIONS.selectors ?? []),
    ...["script", "style", "noscript", "template", "svg", "head"].map((selector) => ({ selector, format: "skip" })),
  ],
};

function collapseBlankLines(text: string): string {
  return text.replace(/\n{3,}/g, "\n\n");
}
