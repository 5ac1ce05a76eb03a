/** The most characters of a receiver's answer (or of an error about it) the delivery log keeps. */
export const STORED_ANSWER_MAX_CHARS = 512;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text a receiver sent us, made storable in a PostgreSQL `text` column: that type cannot hold
 * U+0000, and a failed write of the attempt would leave the delivery claimed and send it again
 * when the lease runs out, forever. NUL and lone surrogates become U+FFFD (invalid UTF-8 already
 * did when the bytes were decoded), so the log still shows something was there; at most
 * `maxChars` characters, never cutting a surrogate pair in half.
 */
export function storableAnswerText(text: string | null, maxChars = STORED_ANSWER_MAX_CHARS): string | null {
  if (text === null) return null;
  let bounded = text.length > maxChars ? text.slice(0, maxChars) : text;
  // A pair cut by the slice leaves a lone high surrogate at the end: replaced below like any other.
  bounded = bounded.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
  return bounded;
}
