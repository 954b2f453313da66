import type { Readable } from 'node:stream'
import { runCli } from '../../src/cli/index.js'

export interface CliRun {
  code: number
  stdout: string
  stderr: string
  /** stdout parsed as the one JSON object `--json` prints. */
  json: <T = Record<string, unknown>>() => T
}

/** Runs the CLI in-process with the given environment (and standard input, for `import -`) and captures what it printed. */
export async function runCliCaptured (argv: string[], env: Record<string, string | undefined>, stdin?: Readable): Promise<CliRun> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    stdout: { write: (text: string) => { stdout += text } },
    stderr: { write: (text: string) => { stderr += text }, isTTY: false },
    env: { LOG_LEVEL: 'silent', ...env },
    ...(stdin === undefined ? {} : { stdin }),
  })
  return { code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T }
}
