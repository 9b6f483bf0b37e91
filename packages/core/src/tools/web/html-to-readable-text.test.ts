import { describe, expect, it } from "vitest";
import { htmlToReadableText } from "./html-to-readable-text.ts";

const articlePage = `<!doctype html><html><head><title>Release notes</title><style>p{color:red}</style></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Version 2 is out</h1>
<p>The second major version of the frobnicator brings a rewritten scheduler that is both faster and simpler to operate in production clusters of every size.</p>
<p>Upgrading takes one command, and the <a href="/docs/upgrade">upgrade guide</a> lists every breaking change together with the migration steps you need.</p>
<ul><li>Faster scheduling</li><li>Smaller memory footprint</li></ul>
<p>We thank all contributors who reported issues, wrote patches, reviewed changes and tested the release candidates over the last months.</p>
</article><script>window.secret = "do not show";</script>
<footer>Copyright footer text</footer></body></html>`;

describe("htmlToReadableText", async () => {
  it("returns the title and the article text without scripts or styles", async () => {
    const page = await htmlToReadableText(articlePage, "https://example.com/news/v2");
    expect(page.title).toBe("Release notes");
    expect(page.text).toContain("rewritten scheduler");
    expect(page.text).toContain("Faster scheduling");
    expect(page.text).not.toContain("do not show");
    expect(page.text).not.toContain("color:red");
  });

  it("resolves link targets against the page URL", async () => {
    const page = await htmlToReadableText(articlePage, "https://example.com/news/v2");
    expect(page.text).toContain("https://example.com/docs/upgrade");
  });

  it("falls back to the body for pages that are not articles", async () => {
    const page = await htmlToReadableText("<html><head><title>T</title></head><body><p>tiny</p><script>x=1</script></body></html>", "http://h/");
    expect(page.title).toBe("T");
    expect(page.text).toBe("tiny");
  });
});
