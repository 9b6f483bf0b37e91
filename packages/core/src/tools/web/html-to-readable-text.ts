import type { Readability } from "@mozilla/readability";
import type { convert, HtmlToTextOptions } from "html-to-text";
import type { parseHTML } from "linkedom";

interface PageLibraries {
  Readability: typeof Readability;
  convert: typeof convert;
  parseHTML: typeof parseHTML;
}

let libraries: Promise<PageLibraries> | undefined;

/** Loaded at the first page read: about 30 MB that processes which never fetch a page do not pay. */
function loadLibraries(): Promise<PageLibraries> {
  libraries ??= Promise.all([import("@mozilla/readability"), import("html-to-text"), import("linkedom")]).then(([readability, htmlToText, linkedom]) => ({
    Readability: readability.Readability,
    convert: htmlToText.convert,
    parseHTML: linkedom.parseHTML,
  }));
  return libraries;
}

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
export async function htmlToReadableText(html: string, pageUrl: string): Promise<ReadablePage> {
  const { Readability, convert, parseHTML } = await loadLibraries();
  const { document } = parseHTML(html);
  const documentTitle = (document.title ?? "").trim();
  resolveLinks(document, pageUrl);
  const linkedHtml = document.toString();
  let article: { title?: string | null; content?: string | null } | null = null;
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
