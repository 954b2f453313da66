/**
 * Where import records come from. A source can be read more than once from the start (the
 * import validates everything in a first pass and writes in a second), so memory stays constant
 * whatever the size: files are re-read, the demo generator is re-run (it is deterministic).
 */

/** One record as read, before validation: a parsed value, or why the line could not be parsed. */
export type RawRecord =
  | { line: number, value: unknown }
  | { line: number, parseError: string }

export interface RecordSource {
  /** Shown in error listings as `NAME:LINE: message` (the file path for files). */
  name: string
  /** The file it reads, for a file: the import may then read it in a thread of its own (scan-in-worker.ts). */
  path?: string
  /** Reads from the beginning; each call starts over. */
  read: () => AsyncIterable<RawRecord>
}
