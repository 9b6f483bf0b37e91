-- The audit log (API.md "Administration, MCP and services"): who changed what, newest first.
CREATE TABLE "audit_entries" (
    "id" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_id" TEXT,
    "action" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "audit_entries_at_id_idx" ON "audit_entries"("at" DESC, "id" DESC);

-- Entries outlive their actor: a deleted user's changes stay on record.
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_actor_id_fkey" FOREIGN KEY ("actor_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Worker processes seen alive (GET /api/services): each upserts its row while it runs.
CREATE TABLE "workers" (
    "id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "concurrency" INTEGER NOT NULL,
    "active_runs" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "workers_pkey" PRIMARY KEY ("id")
);

-- Why a call paused: 'tainted' (untrusted material had entered the run) or 'approval_always' (the
-- admin setting names the tool). Not sealed, like tainted_by.
ALTER TABLE "approvals" ADD COLUMN "pause_reason" TEXT NOT NULL DEFAULT 'tainted';
