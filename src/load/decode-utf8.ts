/** Decodes a definition file as strict UTF-8 (RFC 8259): invalid bytes are an error with their position. */

const strict = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

/** Where the bytes stop being UTF-8: the offset in the text decoded so far, and the offending bytes in hex. */
export interface InvalidUtf8 {
  /** The text with U+FFFD for every invalid sequence, so the position can be shown in it. */
  readonly text: string;
  /** Character offset of the first invalid sequence in `text`. */
  readonly offset: number;
  /** The bytes of that sequence, e.g. "0xC3 0x28". */
  readonly bytes: string;
}

/** The text of `bytes` (a leading byte order mark dropped), or where it is not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): { readonly text: string } | InvalidUtf8 {
  try {
    return { text: strict.decode(bytes) };
  } catch {
    const bad = firstInvalid(bytes);
    const at = bad?.start ?? 0;
    const hex = [...bytes.subarray(at, at + (bad?.length ?? 1))].map((b) => `0x${b.toString(16).toUpperCase().padStart(2, "0")}`);
    return { text: lenient.decode(bytes), offset: lenient.decode(bytes.subarray(0, at)).length, bytes: hex.join(" ") };
  }
}

/**
 * The first byte sequence that is not a UTF-8 character (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF): its start and its length up to the byte that fails.
 */
function firstInvalid(b: Uint8Array): { start: number; length: number } | undefined {
  for (let i = 0; i < b.length; ) {
    const lead = b[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const trail = lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : -1;
    if (trail < 0) return { start: i, length: 1 };
    // The second byte's range excludes overlong forms (E0, F0), surrogates (ED) and code points past U+10FFFF (F4).
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= trail; k++) {
      const c = b[i + k];
      const ok = c !== undefined && (k === 1 ? c >= low && c <= high : (c & 0xc0) === 0x80);
      if (!ok) return { start: i, length: Math.min(k + 1, b.length - i) };
    }
    i += trail + 1;
  }
  return undefined;
}
