-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "tainted_by" JSONB;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "tainted_by" JSONB;
