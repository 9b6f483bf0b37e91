import { describe, expect, it } from "vitest";
import { deriveMcpSecretsKey, openMcpSecrets, sealMcpSecrets } from "./mcp-secrets.ts";

describe("MCP secrets at rest", () => {
  const key = deriveMcpSecretsKey("deployment-secret-0123456789");
  const secrets = { env: { TOKEN: "s3cret" }, headers: { Authorization: "Bearer abc" } };

  it("round-trips, and the sealed text holds no secret", () => {
    const sealed = sealMcpSecrets(key, "github", secrets);
    expect(sealed).not.toContain("s3cret");
    expect(sealed).not.toContain("Bearer");
    expect(openMcpSecrets(key, "github", sealed)).toEqual(secrets);
  });

  it("uses a fresh IV each time", () => {
    expect(sealMcpSecrets(key, "github", secrets)).not.toBe(sealMcpSecrets(key, "github", secrets));
  });

  it("refuses another deployment's key, another server's row, and an altered text", () => {
    const sealed = sealMcpSecrets(key, "github", secrets);
    expect(() => openMcpSecrets(deriveMcpSecretsKey("another-deployment-secret"), "github", sealed)).toThrow();
    expect(() => openMcpSecrets(key, "gitlab", sealed)).toThrow();
    // One bit of the ciphertext flipped. Writing "AA" over its last two characters changed nothing once
    // in 256 runs: the last character of base64url carries unused bits, and the byte could already be 0.
    const parts = sealed.split(".");
    const ciphertext = Buffer.from(parts[3]!, "base64url");
    ciphertext[ciphertext.length - 1]! ^= 1;
    parts[3] = ciphertext.toString("base64url");
    expect(() => openMcpSecrets(key, "github", parts.join("."))).toThrow();
  });
});
