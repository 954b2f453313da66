import { runExport } from './command.js'

/**
 * Entry point of the partner-analytics-export bin. Ctrl-C and SIGTERM abort the export, which
 * removes its partial file; a second Ctrl-C kills at once (the handlers are `once`).
 */
const controller = new AbortController()
const interrupt = () => { controller.abort() }
process.once('SIGINT', interrupt)
process.once('SIGTERM', interrupt)

const code = await runExport(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, signal: controller.signal })
// An interrupted export may still have a request in flight: do not wait for it to answer.
if (controller.signal.aborted) process.exit(code)
process.exitCode = code
