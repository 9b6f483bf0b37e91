import { z } from "zod";

/**
 * A server's name becomes part of its tools' names, `mcp__<server>__<tool>`, which providers cap at
 * 64 characters of `[a-zA-Z0-9_-]`: lowercase letters, digits and single dashes, at most 24
 * characters, leaves a tool 33. No underscore, so `__` always separates the parts.
 */
export const MCP_SERVER_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,22}[a-z0-9])?$/;

export const mcpServerNameSchema = z
  .string()
  .regex(MCP_SERVER_NAME_PATTERN, "1-24 lowercase letters, digits and dashes, starting and ending with a letter or digit")
  .refine((name) => !name.includes("--"), "no two dashes in a row");

/** Environment variable names a stdio server may be given (a POSIX name). */
const environmentName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "an environment variable name");
/** HTTP header names (an RFC 9110 token). */
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/, "an HTTP header name");
const secretValue = z.string().max(8192);

export const mcpStdioRegistrationSchema = z.strictObject({
  name: mcpServerNameSchema,
  transport: z.literal("stdio"),
  command: z.string().min(1).max(1000).meta({ description: "the program the worker starts (a path, or a name found on the sandbox's PATH)" }),
  args: z.array(z.string().max(4000)).max(100).default([]),
  env: z
    .record(environmentName, secretValue)
    .refine((env) => Object.keys(env).length <= 100, "at most 100 variables")
    .default({})
    .meta({ description: "the server's whole environment (nothing of the worker's); stored encrypted, never returned" }),
  network: z.boolean().default(false).meta({ description: "share the host's network inside the sandbox (default false: none)" }),
  enabled: z.boolean().default(true),
});

export const mcpHttpRegistrationSchema = z.strictObject({
  name: mcpServerNameSchema,
  transport: z.literal("http"),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .meta({ description: "the Streamable HTTP endpoint; the SSRF guard applies (`web_fetch_allow` admits private hosts)" }),
  headers: z
    .record(headerName, secretValue)
    .refine((headers) => Object.keys(headers).length <= 50, "at most 50 headers")
    .default({})
    .meta({ description: "sent with every request (e.g. Authorization); stored encrypted, never returned" }),
  enabled: z.boolean().default(true),
});

/** `POST /api/mcp/servers` and the admin tool `add_mcp_server`. */
export const mcpServerRegistrationSchema = z.discriminatedUnion("transport", [mcpStdioRegistrationSchema, mcpHttpRegistrationSchema]);
export type McpServerRegistration = z.output<typeof mcpServerRegistrationSchema>;

export const MCP_SERVER_STATUSES = ["connecting", "connected", "failed"] as const;
export type McpServerStatus = (typeof MCP_SERVER_STATUSES)[number];

/** A tool as its server listed it (the JSON Schema as given). */
export interface McpListedTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** What the API returns for a server: never its env or headers. */
export interface McpServerView {
  name: string;
  transport: "stdio" | "http";
  command: string | null;
  args: string[];
  url: string | null;
  network: boolean;
  enabled: boolean;
  status: McpServerStatus;
  error: string | null;
  tools_count: number;
  created_at: string;
  status_at: string | null;
}
