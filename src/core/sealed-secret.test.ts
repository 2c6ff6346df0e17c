import { describe, expect, it } from "vitest";
import { deriveSecretKey, isSealed, openSealedSecret, SecretKeyMismatchError, sealSecret } from "./sealed-secret.js";

describe("sealed secrets", () => {
  const key = deriveSecretKey("correct horse battery staple");

  it("round-trips, and the stored form does not contain the secret", () => {
    const sealed = sealSecret("the-signing-secret", key);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain("the-signing-secret");
    expect(openSealedSecret(sealed, key)).toBe("the-signing-secret");
    // A fresh IV each time: sealing twice gives two different values.
    expect(sealSecret("the-signing-secret", key)).not.toBe(sealed);
  });

  it("refuses another key, a tampered value and a plain value with SECRET_KEY_MISMATCH", () => {
    const sealed = sealSecret("s", key);
    expect(() => openSealedSecret(sealed, deriveSecretKey("another key"), "resume-link key")).toThrow(
      /resume-link key stored in the database was sealed under another secret key/,
    );
    const tampered = sealed.slice(0, -2) + (sealed.endsWith("A") ? "BB" : "AA");
    expect(() => openSealedSecret(tampered, key)).toThrow(SecretKeyMismatchError);
    expect(() => openSealedSecret("plain-text", key)).toThrow(SecretKeyMismatchError);
    try {
      openSealedSecret("plain-text", key);
    } catch (err) {
      expect((err as SecretKeyMismatchError).code).toBe("SECRET_KEY_MISMATCH");
      expect((err as SecretKeyMismatchError).terminal).toBe(true);
    }
  });

  it("derives a 32-byte key from material of any length, the same each time", () => {
    expect(deriveSecretKey("x")).toHaveLength(32);
    expect(deriveSecretKey("x").equals(deriveSecretKey("x"))).toBe(true);
    expect(deriveSecretKey("x").equals(deriveSecretKey("y"))).toBe(false);
  });
});
