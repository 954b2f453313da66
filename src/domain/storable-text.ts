/**
 * Text a store can hold as it was given. PostgreSQL's `text` refuses U+0000 (NUL) outright, and a
 * lone UTF-16 surrogate has no UTF-8 form (the driver would write U+FFFD in its place, on SQLite
 * too). Two ways to deal with such text:
 * - input of a caller (an API request, src/http/storable-input.ts; a CLI argument, src/cli/index.ts;
 *   an import record, src/services/import/fields.ts) is refused where it enters
 *   (`unstorableCharacter`, `unstorableMessage`), never passed on to the store;
 * - text from outside that must be kept whatever it holds (a webhook receiver's answer, a network
 *   error's message) is made storable (`storableText`, `storableTextOf`): each NUL and each lone
 *   surrogate becomes U+FFFD, as bytes that are not UTF-8 already do when decoded.
 */

/** A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
// eslint-disable-next-line no-control-regex -- the NUL is what is looked for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const EVERY_UNSTORABLE = new RegExp(UNSTORABLE.source, 'g')

/** What makes `text` unstorable, in words, or undefined when a store can hold it. */
export function unstorableCharacter (text: string): string | undefined {
  const found = UNSTORABLE.exec(text)
  if (found === null) return undefined
  return found[0] === '\u0000' ? 'the NUL character (U+0000)' : 'an unpaired surrogate'
}

/** The message for a value that holds such a character: `<what> must not contain …`. */
export function unstorableMessage (what: string, text: string): string | undefined {
  const found = unstorableCharacter(text)
  return found === undefined ? undefined : `${what} must not contain ${found}`
}

/** `text` with each NUL and each lone surrogate replaced by U+FFFD (the replacement character); the rest kept. */
export function storableText (text: string): string {
  return text.replace(EVERY_UNSTORABLE, '\uFFFD')
}

/** Bytes as storable text: invalid UTF-8 sequences, NUL and lone surrogates each become U+FFFD. */
export function storableTextOf (bytes: Uint8Array): string {
  return storableText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'))
}
