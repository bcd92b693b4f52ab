/**
 * Strict application/x-www-form-urlencoded parsing for the token endpoint. URLSearchParams decodes
 * an ill-formed percent-encoding such as `jos%E8` to `jos\uFFFD` without a word, which let two
 * different scopes name one account; here it is an error. A parameter may appear once (RFC 6749
 * section 3.2: "parameters MUST NOT be included more than once").
 */
export type FormResult = { ok: true; params: Map<string, string> } | { ok: false; message: string };

export function parseStrictForm(text: string): FormResult {
  const params = new Map<string, string>();
  if (text === "") return { ok: true, params };
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? "" : pair.slice(eq + 1);
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, " "));
      value = decodeURIComponent(rawValue.replace(/\+/g, " "));
    } catch {
      return { ok: false, message: `The form parameter '${rawName.slice(0, 50)}' is not valid percent-encoded UTF-8.` };
    }
    if (params.has(name)) return { ok: false, message: `The form parameter '${name.slice(0, 50)}' is included more than once.` };
    params.set(name, value);
  }
  return { ok: true, params };
}
