// What the bench workloads share: an API request that throws on an error answer, and a bounded pool.

/** Where requests go, and as whom. */
export interface BenchClient {
  url: string;
  token: string;
}

/** One API request; its JSON answer, or an error naming the request and the answer. */
export async function requestJson(client: BenchClient, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${client.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${client.token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs `count` tasks with at most `concurrency` at once. */
export async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        await task(index);
      }
    }),
  );
}
