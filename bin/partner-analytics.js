#!/usr/bin/env node
// The `partner-analytics` command (on the PATH after `npm link`; `npx partner-analytics` in this
// checkout). In a checkout it runs the TypeScript sources through tsx, so it is always current and
// needs no build; where only the compiled CLI exists (dist/, after `npm run build`), it runs that.
import { existsSync } from 'node:fs'

const sources = new URL('../src/cli/main.ts', import.meta.url)
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api')
  register()
  await import(sources.href)
} else {
  await import('../dist/cli/main.js')
}
