// A conservative e-mail detector: something@domain.tld anywhere in the text.
const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@]{2,}/;

export function containsEmail(text: string): boolean {
  return EMAIL.test(text);
}
