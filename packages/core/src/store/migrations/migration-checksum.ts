import { createHash } from "node:crypto";

/** sha256 of the script as 64 lower-case hex digits: what Prisma writes to `_prisma_migrations.checksum`. */
export function migrationChecksum(script: string | Buffer): string {
  return createHash("sha256").update(script).digest("hex");
}

/**
 * Whether `script` is the migration recorded with `checksum`, by Prisma's rules (schema engine,
 * `script_matches_checksum`): a checkout that converted line endings (git on Windows) still
 * matches, and so do checksums from old Prisma versions that wrote bytes without zero padding.
 */
export function scriptMatchesChecksum(script: string, checksum: string): boolean {
  const variants = [script, script.replaceAll("\r\n", "\n"), script.replaceAll("\n", "\r\n")];
  const legacyFormat = checksum !== "" && checksum.length !== 64;
  return variants.some((variant) => {
    const digest = createHash("sha256").update(variant).digest();
    const rendered = legacyFormat ? [...digest].map((byte) => byte.toString(16)).join("") : digest.toString("hex");
    return rendered === checksum;
  });
}
