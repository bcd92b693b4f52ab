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
 * The character rules are regular expressions without flags, so the OpenAPI document states them
 * as `pattern`s (the generator emits only a schema's first regex, and mangles flags).
 */
const NOT_IN_IDENTIFIERS = "\\u0000-\\u001F\\u007F-\\u009F\\u200B-\\u200D\\u2060\\u202A-\\u202E\\u2066-\\u2069\\uFEFF";
const NOT_IN_TEXT = "\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u200B-\\u200D\\u2060\\u202A-\\u202E\\u2066-\\u2069\\uFEFF";

/**
 * One character an identifier may contain, as a regex class, for patterns with a prefix
 * (`lref-${identifierChar()}+`); `alsoNot` excludes more (e.g. "\\s").
 */
export const identifierChar = (alsoNot = "") => `[^${NOT_IN_IDENTIFIERS}${alsoNot}]`;

const IDENTIFIER_MESSAGE = "must not contain control, bidirectional-formatting or zero-width characters";
const TEXT_MESSAGE = "must not contain control characters (other than tab and line breaks), bidirectional-formatting or zero-width characters";

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (s: string) => !LONE_SURROGATE.test(s);
const surrogateMessage = { message: "must not contain unpaired surrogates (text must be valid Unicode)" };

/** A string matching `pattern` (whose characters must follow the identifier rule) and well-formed Unicode. */
export function identifierMatching(pattern: RegExp, message: string) {
  return z.string().regex(pattern, { message }).refine(wellFormed, surrogateMessage);
}

/**
 * A partner-chosen identifier: chain length limits and `.trim()` after it (the characters are
 * checked before any trimming, so a tab or BOM around an id is refused, not silently dropped).
 */
export const identifierText = identifierMatching(new RegExp(`^${identifierChar()}*$`), IDENTIFIER_MESSAGE);

/** A name or free text: tabs and line breaks allowed, other control and formatting characters not. */
export const freeText = z
  .string()
  .regex(new RegExp(`^[^${NOT_IN_TEXT}]*$`), { message: TEXT_MESSAGE })
  .refine(wellFormed, surrogateMessage);

/** A learning objective id (`lref-...`) as requests name one: the prefix, no whitespace, the identifier rule. */
export const ObjectiveId = identifierMatching(
  new RegExp(`^lref-${identifierChar("\\s")}+$`),
  "must be a learning objective id (lref-...), without whitespace, control, bidirectional-formatting or zero-width characters",
).max(200);
