import MarkdownIt from "markdown-it";
import { useMemo } from "react";
import { classNames } from "../../lib/class-names.ts";
import styles from "./Markdown.module.css";

// html: false escapes any HTML in the text, and markdown-it refuses javascript:, vbscript: and
// data: links, so model output cannot put markup or script into the page. Images are not rendered
// (a model could otherwise make the browser fetch any URL); their alt text shows instead.
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });
markdown.disable("image");

const defaultLinkOpen = markdown.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
  const token = tokens[index]!;
  token.attrSet("target", "_blank");
  token.attrSet("rel", "noopener noreferrer");
  return defaultLinkOpen(tokens, index, options, env, self);
};

export function renderMarkdown(text: string): string {
  return markdown.render(text);
}

/** Model text as markdown, rendered with raw HTML escaped. */
export function Markdown({ text, className }: { text: string; className?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it output with html disabled escapes every tag of the source
  return <div className={classNames(styles.markdown, className)} dangerouslySetInnerHTML={{ __html: html }} />;
}
