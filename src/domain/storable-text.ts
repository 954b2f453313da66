/**
 * Text a store can hold as it was given. PostgreSQL's `text` refuses U+0000 (NUL) outright, and a
 * lone UTF-16 surrogate has no UTF-8 form (the driver would write U+FFFD in its place, on SQLite
 * too): a value holding either is refused where it enters — an API request (src/http/storable-input.ts),
 * a CLI argument (src/cli/index.ts), an import record (src/services/import/fields.ts) — never
 * passed on to the store.
 */

/** A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
// eslint-disable-next-line no-control-regex -- the NUL is what is looked for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

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
