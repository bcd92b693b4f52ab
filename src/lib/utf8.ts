const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * UTF-8 text of `bytes`, or the byte offset of the first sequence that is not well-formed UTF-8
 * (Unicode table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF, no truncation).
 * The native decoder does the common case; the offset is only searched for when it refuses.
 */
export function decodeUtf8(bytes: Uint8Array): { ok: true; text: string } | { ok: false; offset: number } {
  try {
    return { ok: true, text: strict.decode(bytes) };
  } catch {
    return { ok: false, offset: invalidUtf8Offset(bytes) };
  }
}

/** The offset of the first ill-formed sequence, or -1 when the bytes are well-formed UTF-8. */
function invalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}
