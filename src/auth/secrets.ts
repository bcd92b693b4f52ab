const encoder = new TextEncoder();

export function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The bytes of canonical unpadded base64url text, else null. Canonical: the text is exactly what
 * `base64url` makes of those bytes, so the unused low bits of the last character are zero and there
 * is one spelling per value (a token has one string; docs/security.md "Controls").
 */
export function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  let s: string;
  try {
    s = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  } catch {
    return null; // e.g. a length that no base64 text has
  }
  const bytes = Uint8Array.from(s, (ch) => ch.charCodeAt(0));
  return base64url(bytes) === text ? bytes : null;
}

/** A random, URL-safe secret of `bytes` bytes of entropy. */
export function randomSecret(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * SHA-256 of a secret. Client secrets and refresh tokens are 256-bit random values, so a plain
 * digest is enough to make a leaked table useless (no dictionary to try); only the digest is stored.
 */
export async function hashSecret(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(secret));
  return base64url(new Uint8Array(digest));
}

/** Constant-time equality of two strings (same length or not). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ea = encoder.encode(a);
  const eb = encoder.encode(b);
  if (ea.byteLength !== eb.byteLength) {
    // Still spend the comparison so length mismatches are not faster than content mismatches.
    crypto.subtle.timingSafeEqual(ea, ea);
    return false;
  }
  return crypto.subtle.timingSafeEqual(ea, eb);
}

/** Checks a presented secret against a stored digest in constant time. */
export async function secretMatches(presented: string, storedHash: string): Promise<boolean> {
  return constantTimeEqual(await hashSecret(presented), storedHash);
}
