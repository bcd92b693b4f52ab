import { createMiddleware } from "hono/factory";
import { badRequest } from "../errors";
import { decodeUtf8 } from "../lib/utf8";
import type { AppEnv } from "./app-env";

/**
 * Request bodies must be valid UTF-8 (RFC 8259 section 8.1; docs/security.md "Controls"): a body
 * that is not is refused with 400 before anything parses it, instead of being decoded with U+FFFD
 * replacement characters (which made `jos\xE9` and `jos\xE8` the same id). The bytes read here are
 * cached by Hono, so the JSON validator parses them without reading the body again.
 */
export function utf8Body() {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.raw.body !== null) {
      const decoded = decodeUtf8(new Uint8Array(await c.req.arrayBuffer()));
      if (!decoded.ok) {
        throw badRequest("The request body is not valid UTF-8; send JSON encoded as UTF-8.", [
          { path: "body", message: `invalid UTF-8 byte sequence at byte ${decoded.offset}` },
        ]);
      }
    }
    await next();
  });
}
