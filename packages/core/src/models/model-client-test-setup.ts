// What the provider clients' test files (anthropic/, openai/) share. Imported by tests only.
import { createServer } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type FakeProviderServer, startFakeProviderServer } from "../testing/fake-provider-server.ts";
import type { ModelRequest } from "./model-client.ts";

/** One fake provider server for the test file, handed to `started`; its recorded requests are cleared before each test. */
export function useFakeProviderServer(started: (server: FakeProviderServer) => void): void {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await startFakeProviderServer();
    started(server);
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });
}

/** A request for `model`: one user message, no tools, a 5 s inactivity timeout. */
export function modelRequest(model: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model,
    messages: [{ role: "user", content: "hello" }],
    tools: [],
    signal: new AbortController().signal,
    inactivityTimeoutMs: 5000,
    ...overrides,
  };
}

/** A local port nothing listens on (it was free a moment ago): a provider that refuses the connection. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
