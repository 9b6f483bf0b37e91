export { createApp, API_ROUTERS, type RouterFactory } from "./app.ts";
export type { ApiDependencies } from "./api-dependencies.ts";
export { parseApiConfig, apiEnvironmentSchema, type ApiConfig } from "./config.ts";
export { startApiServer, type ApiServer, type StartApiServerOverrides } from "./server.ts";
