/**
 * The MCP SDK's client side, loaded at the first connection: it brings ajv and its schemas (tens of
 * MB of heap), and most workers have no MCP server registered. Loaded once; later calls share it.
 */
export interface McpSdk {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  McpError: typeof import("@modelcontextprotocol/sdk/types.js").McpError;
  ErrorCode: typeof import("@modelcontextprotocol/sdk/types.js").ErrorCode;
  ToolListChangedNotificationSchema: typeof import("@modelcontextprotocol/sdk/types.js").ToolListChangedNotificationSchema;
  openMcpTransport: typeof import("./open-mcp-transport.ts").openMcpTransport;
}

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("./open-mcp-transport.ts"),
  ]).then(([client, types, transport]) => ({
    Client: client.Client,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    openMcpTransport: transport.openMcpTransport,
  }));
  return loading;
}
