export { createApp } from "./app.ts";
export { API_ROUTE_GROUPS, openApiDocument } from "./api-route-groups.ts";
export type { ApiDependencies } from "./api-dependencies.ts";
export { parseApiConfig, apiEnvironmentSchema, type ApiConfig } from "./config.ts";
export { startApiServer, type ApiServer, type StartApiServerOverrides } from "./server.ts";
