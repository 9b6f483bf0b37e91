// An HTTP request with its path sent byte for byte: for tests of routing and path escapes, unit and integration alike.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";

/**
 * A request whose path is sent exactly as given (fetch would normalize `%2e%2e` and `..` away,
 * hiding exactly what path-escape tests need to send).
 */
export async function rawRequest(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string; json: any }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: hostname,
        port,
        method: options.method ?? "GET",
        path: options.path,
        headers: {
          ...(options.body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(options.body) }),
          ...options.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
        });
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}
