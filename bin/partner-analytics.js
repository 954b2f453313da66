#!/usr/bin/env node
// The `partner-analytics` command (`npm run -s cli -- …` and `npx partner-analytics` in this
// checkout; on the PATH after `npm link`). It runs the compiled CLI (dist/, `npm run build`) when
// that is current — compiled after the last change to any file under src/ — and otherwise the
// TypeScript sources through tsx, so it is never stale and needs no build; tsx compiles the
// sources at every start, which costs seconds (README.md "Operator CLI"). Where only dist/ exists
// (an installed package), it runs that. PA_CLI_FROM_SOURCES=1 runs the sources whatever dist holds.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const sources = fileURLToPath(new URL('../src', import.meta.url))
const compiled = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))

/** The latest modification time of a file or folder under `folder` (a removed file changes its folder's). */
function newestUnder (folder) {
  let newest = statSync(folder).mtimeMs
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs)
  }
  return newest
}

const fromSources = existsSync(sources) &&
  (process.env.PA_CLI_FROM_SOURCES === '1' || !existsSync(compiled) || statSync(compiled).mtimeMs < newestUnder(sources))
if (fromSources) {
  const { register } = await import('tsx/esm/api')
  register()
  await import(new URL('../src/cli/main.ts', import.meta.url).href)
} else {
  await import('../dist/cli/main.js')
}
