// Prisma CLI configuration (Prisma 7). The runtime client gets its connection through the pg
// driver adapter (packages/core/src/store/create-prisma-client.ts), not from here.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agentq" },
});
