import { z } from "@hono/zod-openapi";

/**
 * What text the API accepts (docs/security.md "Controls"), written once for every schema.
 *
 * Identifiers a partner chooses (external_user_id, gref-/lref-/mref-/tref- ids, topic, group and
 * goal target ids, instance hashes, Idempotency-Key) are judged by Unicode general category, not by a
 * list of characters (docs/security.md "Controls"). Refused:
 *   - Cc (controls), Cf (formatting: bidi controls, zero-width characters, the BOM, tag characters),
 *     Cs (surrogates: a lone `\ud800` escape has no UTF-8 encoding), Co (private use), Cn (unassigned);
 *   - Zl and Zp (U+2028, U+2029) and every space separator but U+0020 (no-break and other spaces);
 *   - variation selectors (U+180B–U+180D, U+180F, U+FE00–U+FE0F, U+E0100–U+E01EF) and the tag block
 *     U+E0000–U+E007F;
 * and the identifier must be in Unicode normalization form C (one spelling per identifier: `é` as
 * U+00E9, never `e` + U+0301).
 *
 * Names and free text refuse control characters (tab, line feed and carriage return allowed),
 * bidirectional formatting and zero-width characters, and unpaired surrogates.
 *
 * The identifier rule is a regular expression with Unicode property escapes, checked with the `u`
 * flag. The OpenAPI document cannot state it as written: `\p{...}` and `\u{...}` are outside the
 * regex subset JSON Schema recommends for interoperability, and Python's `re`, Spectral and other
 * partners' tools refuse them. The document's `pattern` therefore names the refused characters of
 * the Basic Multilingual Plane with `\uXXXX` escapes only: a necessary condition (every character
 * it excludes the rule refuses too; test/unit/security/identifier-pattern.test.ts), while the
 * server also refuses unassigned code points, supplementary private use, tag characters and
 * supplementary variation selectors (docs/api-document.md "Identifier patterns"). NFC is a
 * refinement (stated in the fields' descriptions).
 */
const NOT_IN_IDENTIFIERS =
  "\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}\\p{Zl}\\p{Zp}\\u00A0\\u1680\\u2000-\\u200A\\u202F\\u205F\\u3000\\p{Variation_Selector}\\u{E0000}-\\u{E007F}";
/** The rule's characters of the Basic Multilingual Plane that have a fixed category, as portable escapes. */
const NOT_IN_IDENTIFIERS_PORTABLE =
  "\\u0000-\\u001F\\u007F-\\u00A0\\u00AD\\u0600-\\u0605\\u061C\\u06DD\\u070F\\u1680\\u180B-\\u180F\\u2000-\\u200F\\u2028-\\u202F\\u205F-\\u206F\\u3000\\uE000-\\uF8FF\\uFE00-\\uFE0F\\uFEFF\\uFFF9-\\uFFFB";
const NOT_IN_TEXT = "\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u200B-\\u200D\\u2060\\u202A-\\u202E\\u2066-\\u2069\\uFEFF";

/**
 * One character an identifier may contain, as a regex class, for patterns with a prefix
 * (`lref-${identifierChar()}+`); `alsoNot` excludes more (e.g. "\\s").
 */
const identifierChar = (alsoNot = "") => `[^${NOT_IN_IDENTIFIERS}${alsoNot}]`;
/** The same class as the OpenAPI document states it (portable escapes; see the comment at the top). */
export const documentedIdentifierChar = (alsoNot = "") => `[^${NOT_IN_IDENTIFIERS_PORTABLE}${alsoNot}]`;

/** Builds an identifier pattern around one character class (`(char) => \`^lref-${char("\\s")}+$\``). */
type PatternAround = (char: (alsoNot?: string) => string) => string;

const IDENTIFIER_MESSAGE =
  "must not contain control, formatting (bidirectional, zero-width, tag), private-use, unassigned or surrogate characters, line or paragraph separators, spaces other than U+0020, or variation selectors";
const TEXT_MESSAGE = "must not contain control characters (other than tab and line breaks), bidirectional-formatting or zero-width characters";
const nfcMessage = { message: "must be in Unicode normalization form C (NFC: composed characters, e.g. é as U+00E9)" };

const isNfc = (s: string) => s.normalize("NFC") === s;

/** A string matching the pattern built around the identifier rule's character class, in NFC. */
export function identifierMatching(patternAround: PatternAround, message: string) {
  return z
    .string()
    .regex(new RegExp(patternAround(identifierChar), "u"), { message })
    .refine(isNfc, nfcMessage)
    .openapi({ pattern: patternAround(documentedIdentifierChar) });
}

/**
 * A partner-chosen identifier: chain length limits and `.trim()` after it (the characters are
 * checked before any trimming, so a tab or BOM around an id is refused, not silently dropped).
 */
export const identifierText = identifierMatching((char) => `^${char()}*$`, IDENTIFIER_MESSAGE);

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A name or free text: tabs and line breaks allowed, other control and formatting characters not. */
export const freeText = z
  .string()
  .regex(new RegExp(`^[^${NOT_IN_TEXT}]*$`), { message: TEXT_MESSAGE })
  .refine((s) => !LONE_SURROGATE.test(s), { message: "must not contain unpaired surrogates (text must be valid Unicode)" });

/** A learning objective id (`lref-...`) as requests name one: the prefix, no whitespace, the identifier rule. */
export const ObjectiveId = identifierMatching(
  (char) => `^lref-${char("\\s")}+$`,
  "must be a learning objective id (lref-...), without whitespace or the characters identifiers refuse (control, formatting, separators, variation selectors)",
).max(200);
