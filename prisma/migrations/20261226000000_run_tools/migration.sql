-- A run may be limited to some tools (POST /api/chats/:id/runs `tools`): fewer schemas sent to the
-- model each round. Empty: every tool the run's switches and the user's role allow, as before.
-- Nullable, as Prisma declares a list column (`String[]`); null reads as empty.
ALTER TABLE "runs" ADD COLUMN "tools" TEXT[] DEFAULT ARRAY[]::TEXT[];
