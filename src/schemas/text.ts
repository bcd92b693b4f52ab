import { z } from "@hono/zod-openapi";

/**
 * What text the API accepts (decisions.md "Input hygiene"), written once for every schema.
 *
 * Refused in identifiers a partner chooses (external_user_id, gref-/lref-/mref-/tref- ids, topic,
 * group and goal target ids, instance hashes, Idempotency-Key):
 *   - control characters: C0 (U+0000–U+001F), DEL (U+007F), C1 (U+0080–U+009F)
 *   - bidirectional formatting: U+202A–U+202E, U+2066–U+2069
 *   - zero-width: U+200B–U+200D, U+2060, U+FEFF
 *   - unpaired surrogates (a JSON `\ud800` escape): no UTF-8 encoding exists, storing one would
 *     silently turn it into U+FFFD
 * Names and free text refuse the same except tab, line feed and carriage return.
 *
 * The rules are regular expressions, so the OpenAPI document states them as `pattern`s.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose
export const IDENTIFIER_PATTERN = /^[^\u0000-\u001F\u007F-\u009F\u200B-\u200D\u2060\u202A-\u202E\u2066-\u2069\uFEFF\uD800-\uDFFF]*$/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose
export const FREE_TEXT_PATTERN = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B-\u200D\u2060\u202A-\u202E\u2066-\u2069\uFEFF\uD800-\uDFFF]*$/u;

/**
 * A partner-chosen identifier: chain length limits, prefixes, `.trim()` after it (the characters are
 * checked before any trimming, so a tab or BOM around an id is refused, not silently dropped).
 */
export const identifierText = z.string().regex(IDENTIFIER_PATTERN, { message: "must not contain control, bidirectional-formatting or zero-width characters" });

/** A name or free text: tabs and line breaks allowed, other control and formatting characters not. */
export const freeText = z.string().regex(FREE_TEXT_PATTERN, {
  message: "must not contain control characters (other than tab and line breaks), bidirectional-formatting or zero-width characters",
});
