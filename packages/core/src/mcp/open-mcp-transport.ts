import { existsSync } from "node:fs";
import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createUnconfinedSandbox } from "../tools/process/sandbox/bubblewrap-sandbox.ts";
import type { ProcessSandbox } from "../tools/process/sandbox/process-sandbox.ts";
import { type HostResolver, systemHostResolver } from "../tools/web/ssrf/ssrf-guard.ts";
import { parseWebFetchAllowList } from "../tools/web/ssrf/web-fetch-allow-list.ts";
import { createGuardedFetch } from "./guarded-fetch.ts";
import type { McpServerSecrets } from "./mcp-secrets.ts";

export interface McpTransportTarget {
  name: string;
  transport: "stdio" | "http";
  command: string | null;
  args: string[];
  url: string | null;
  network: boolean;
}

export interface OpenMcpTransportOptions {
  /** Where stdio servers run; `mode: "off"` or null: unconfined, but still with their given environment only. */
  sandbox: ProcessSandbox | null;
  /** Host directories a stdio server must not see (the workspaces root). */
  hiddenPaths: readonly string[];
  /** The admin allow-list `web_fetch_allow` (the SSRF guard's exceptions) as it is now. */
  webFetchAllow: readonly string[];
  resolveHost?: HostResolver;
}

/**
 * The SDK transport for one registration: stdio servers started in the sandbox with their env only
 * (never the worker's), http servers reached through the SSRF guard.
 */
export function openMcpTransport(target: McpTransportTarget, secrets: McpServerSecrets, options: OpenMcpTransportOptions): Transport {
  if (target.transport === "stdio") {
    if (target.command === null) throw new Error("a stdio server needs a command");
    const request = {
      file: target.command,
      args: target.args,
      environment: { HOME: "/tmp", ...secrets.env },
      network: target.network,
      hiddenPaths: options.hiddenPaths.filter((path) => existsSync(path)),
      inheritedVariables: DEFAULT_INHERITED_ENV_VARS,
    };
    const invocation = (options.sandbox ?? createUnconfinedSandbox()).serverInvocation(request);
    // The SDK adds some of the worker's variables (HOME, PATH, USER...) to the spawned process's
    // environment; the invocation removes them again (bwrap --unsetenv, env -u) unless the registration sets them.
    return new StdioClientTransport({ command: invocation.file, args: invocation.args, env: invocation.env, cwd: invocation.cwd, stderr: "ignore" });
  }
  if (target.url === null) throw new Error("an http server needs a url");
  const url = new URL(target.url);
  const allowList = parseWebFetchAllowList(options.webFetchAllow);
  const resolveHost = options.resolveHost ?? systemHostResolver;
  return new StreamableHTTPClientTransport(url, {
    requestInit: { headers: secrets.headers },
    // Every request connects only where the SSRF guard allows (the addresses checked are the ones connected to).
    fetch: createGuardedFetch({ allowList, resolve: resolveHost }),
  });
}
