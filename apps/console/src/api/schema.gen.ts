// The API's types are generated into @agentq/client (packages/client/src/schema.gen.ts) by
// `npm run generate:api-types`; the console uses the same ones.
export type { components, operations, paths } from "@agentq/client/schema";
