import type { Readable } from 'node:stream'
/**
 * Where a command writes, so tests can run the CLI in-process and read what it printed.
 * README.md "Operator CLI": `--json` output is one JSON object on stdout; human text goes to stderr.
 */
export interface CliIo {
  stdout: { write: (text: string) => unknown, isTTY?: boolean }
  stderr: { write: (text: string) => unknown, isTTY?: boolean }
  env: Record<string, string | undefined>
  /** Where `import -` reads from; process.stdin when absent. */
  stdin?: Readable
}

export const processIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  stdin: process.stdin,
}

/** Exit codes, documented in the README's CLI reference. */
export const EXIT = {
  OK: 0,
  /** The operation failed: unknown user or brand, invalid import file, store unreachable. */
  FAILURE: 1,
  /** Bad arguments or options. */
  USAGE: 2,
  /** A bad environment variable (one line names it). */
  CONFIG: 78,
} as const

export function printJson (io: CliIo, value: unknown): void {
  io.stdout.write(JSON.stringify(value) + '\n')
}

export function say (io: CliIo, line: string): void {
  io.stderr.write(line + '\n')
}
