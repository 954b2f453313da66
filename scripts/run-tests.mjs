#!/usr/bin/env node
// `npm test`: every test file under test/ (and packages/*/test/), on Node's own test runner with
// tsx for TypeScript. Node 20's --test does not expand globs, hence this small launcher.
// Extra arguments are passed through, e.g. `npm test -- test/http/health.test.ts`.
import { spawnSync } from 'node:child_process'
import { globSync } from 'glob'

const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('-'))
const flags = process.argv.slice(2).filter((arg) => arg.startsWith('-'))
const files = requested.length > 0
  ? requested
  : globSync(['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'], { ignore: ['**/node_modules/**'] }).sort()

if (files.length === 0) {
  console.error('no test files found')
  process.exit(1)
}

const result = spawnSync(process.execPath, [
  '--import', 'tsx',
  '--test',
  // Two cores: two test files at a time keeps both busy without thrashing PostgreSQL.
  '--test-concurrency=2',
  ...(process.stdout.isTTY ? [] : ['--test-reporter=spec']),
  ...flags,
  ...files,
], { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } })

process.exit(result.status ?? 1)
