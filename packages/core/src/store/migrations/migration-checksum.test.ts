import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { migrationChecksum, scriptMatchesChecksum } from "./migration-checksum.ts";

const script = "-- CreateTable\nCREATE TABLE a (id INTEGER);\n";

describe("migration checksums", () => {
  it("are the sha256 hex of the file", () => {
    expect(migrationChecksum(script)).toBe(createHash("sha256").update(Buffer.from(script)).digest("hex"));
    expect(migrationChecksum(script)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("match the same script, and not an edited one", () => {
    expect(scriptMatchesChecksum(script, migrationChecksum(script))).toBe(true);
    expect(scriptMatchesChecksum(`${script}-- edit\n`, migrationChecksum(script))).toBe(false);
  });

  it("match across converted line endings, as Prisma's do", () => {
    expect(scriptMatchesChecksum(script.replaceAll("\n", "\r\n"), migrationChecksum(script))).toBe(true);
    expect(scriptMatchesChecksum(script, migrationChecksum(script.replaceAll("\n", "\r\n")))).toBe(true);
  });

  it("match checksums that old Prisma versions wrote without zero padding", () => {
    const digest = createHash("sha256").update(script).digest();
    const unpadded = [...digest].map((byte) => byte.toString(16)).join("");
    // Only meaningful when some byte is below 0x10 (true for this script).
    expect(unpadded.length).toBeLessThan(64);
    expect(scriptMatchesChecksum(script, unpadded)).toBe(true);
  });
});
