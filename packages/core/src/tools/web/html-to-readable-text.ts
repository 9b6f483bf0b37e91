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
export function htmlToReadableText(html: string, baseUrl: string): ReadablePage {
  const { document } = parseHTML(html);
  const documentTitle = (document.title ?? "").trim();
  let article: ReturnType<Readability["parse"]> = null;
  try {
    // Readability mutates the document it reads: give it its own copy.
    article = new Readability(parseHTML(html).document as never, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  const articleText = article?.content ? convert(article.content, textOptions(baseUrl)).trim() : "";
  const text = articleText !== "" ? articleText : convert(html, fallbackOptions(baseUrl)).trim();
  const title = (article?.title ?? "").trim() || documentTitle;
  return { title, text: collapseBlankLines(text) };
}

function textOptions(baseUrl: string): HtmlToTextOptions {
  return {
    wordwrap: false,
    selectors: [
      { selector: "a", options: { baseUrl, hideLinkHrefIfSameAsText: true, ignoreHref: false } },
      { selector: "img", format: "skip" },
    ],
  };
}

function fallbackOptions(baseUrl: string): HtmlToTextOptions {
  const base = textOptions(baseUrl);
  return {
    ...base,
    baseElements: { selectors: ["body"], returnDomByDefault: true },
    selectors: [
      ...(base.selectors ?? []),
      ...["script", "style", "noscript", "template", "svg", "head"].map((selector) => ({ selector, format: "skip" })),
    ],
  };
}

function collapseBlankLines(text: string): string {
  return text.replace(/\n{3,}/g, "\n\n");
}
