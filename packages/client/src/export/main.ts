import { runExport } from './command.js'

/** Entry point of the partner-analytics-export bin. */
process.exitCode = await runExport(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr })
