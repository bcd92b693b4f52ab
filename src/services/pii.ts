// A conservative e-mail detector: something@domain.tld anywhere in the text.
const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@]{2,}/;

// NFKC folds look-alikes of @ and . (full-width ＠ ．, small ﹫ ﹒) to ASCII; the ideographic full stop
// does not fold but IDNA reads it as a domain dot, so it counts as one too.
const IDEOGRAPHIC_FULL_STOP = /\u3002/g;

export function containsEmail(text: string): boolean {
  return EMAIL.test(text.normalize("NFKC").replace(IDEOGRAPHIC_FULL_STOP, "."));
}
