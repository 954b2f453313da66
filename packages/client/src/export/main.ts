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
// Interrupted: the request in flight was aborted; exit now rather than wait for anything else
// still scheduled (a socket closing, a retry timer).
if (controller.signal.aborted) process.exit(code)
process.exitCode = code
