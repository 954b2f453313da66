#!/usr/bin/env node
import { runCli } from './index.js'

// The executable: exit code from runCli; output flushes before Node exits on its own.
process.exitCode = await runCli(process.argv.slice(2))
