/**
 * The first `count` segments of a URL path, joined with `/`: `/api/chats/c1` → `api/chats` (2) or
 * `api` (1); `/` → `""`; fewer segments than `count` → all of them. The raw, still percent-encoded
 * path is what express routers match, so it is not decoded here either.
 */
export function leadingSegments(path: string, count: number): string {
  let end = 0;
  for (let found = 0; found < count; found += 1) {
    end = path.indexOf("/", end + 1);
    if (end < 0) return path.slice(1);
  }
  return path.slice(1, end);
}
