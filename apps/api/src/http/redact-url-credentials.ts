/** Query parameters whose name (decoded, any case, any suffix such as `[]`) says they carry a credential. */
const CREDENTIAL_NAME = /token|secret|passw|api_?key|apikey|auth|key$/i;

const REDACTED = "[REDACTED]";

/**
 * The URL with the value of every credential-like query parameter replaced, for logs. The WebSocket
 * and the event stream take the API token as `?token=`; the logger's line-level redactor catches the
 * plain form, and this also catches the forms it cannot see: a percent-encoded name (`tok%65n`,
 * which URLSearchParams and so authentication decode) and bracketed ones (`token[]`).
 */
export function redactUrlCredentials(url: string): string {
  const queryStart = url.indexOf("?");
  if (queryStart < 0) return url;
  const fragmentStart = url.indexOf("#", queryStart);
  const queryEnd = fragmentStart < 0 ? url.length : fragmentStart;
  const query = url
    .slice(queryStart + 1, queryEnd)
    .split("&")
    .map((parameter) => {
      const separator = parameter.indexOf("=");
      const rawName = separator < 0 ? parameter : parameter.slice(0, separator);
      return isCredentialName(rawName) ? `${rawName}=${REDACTED}` : parameter;
    })
    .join("&");
  return `${url.slice(0, queryStart)}?${query}${url.slice(queryEnd)}`;
}

/** A parsed query (express's `request.query`) with credential-like parameters' values replaced. */
export function redactQueryCredentials(query: unknown): unknown {
  if (query === null || typeof query !== "object") return query;
  return Object.fromEntries(Object.entries(query).map(([name, value]) => [name, isCredentialName(name) ? REDACTED : value]));
}

function isCredentialName(rawName: string): boolean {
  let name = rawName.replaceAll("+", " ");
  try {
    name = decodeURIComponent(name);
  } catch {
    // Not valid percent-encoding: judged as written.
  }
  return CREDENTIAL_NAME.test(name.trim());
}
