import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'

/**
 * Which CLI the `partner-analytics` bin runs (README.md "Operator CLI"): the compiled one when
 * dist/cli/main.js was written after every file under src/, the sources through tsx otherwise
 * (a source edited since the build, no build, or PA_CLI_FROM_SOURCES=1), and dist/ alone where no
 * sources exist. Tried on a copy of the bin in a folder of its own, whose two mains say which they
 * are, with modification times set rather than waited for.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const BUILT = new Date('2026-11-28T10:00:00Z')
const BEFORE = new Date('2026-11-28T09:00:00Z')
const AFTER = new Date('2026-11-28T11:00:00Z')

describe('the partner-analytics bin: compiled when current, sources otherwise', () => {
  let dir: string
  const file = (path: string): string => join(dir, path)
  const ran = (env: Record<string, string> = {}): string => {
    const result = spawnSync(process.execPath, [file('bin/partner-analytics.js'), '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 })
    assert.equal(result.status, 0, result.stderr)
    return result.stdout.trim()
  }
  const stamp = (path: string, at: Date): void => { utimesSync(file(path), at, at) }

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pa-bin-'))
    for (const folder of ['bin', 'src/cli', 'dist/cli']) mkdirSync(file(folder), { recursive: true })
    copyFileSync(join(ROOT, 'bin/partner-analytics.js'), file('bin/partner-analytics.js'))
    writeFileSync(file('package.json'), '{"type":"module"}\n')
    symlinkSync(join(ROOT, 'node_modules'), file('node_modules'))
    writeFileSync(file('src/cli/main.ts'), "const from: string = 'sources'\nconsole.log(from, process.argv.slice(2).join(' '))\n")
    writeFileSync(file('src/cli/other.ts'), 'export {}\n')
    writeFileSync(file('dist/cli/main.js'), "console.log('compiled', process.argv.slice(2).join(' '))\n")
    for (const path of ['src/cli/main.ts', 'src/cli/other.ts', 'src/cli', 'src']) stamp(path, BEFORE)
    stamp('dist/cli/main.js', BUILT)
  })
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('runs the compiled CLI, with the arguments, when it was built after every source', () => {
    assert.equal(ran(), 'compiled --help')
  })

  it('runs the sources when asked to, whatever dist holds', () => {
    assert.equal(ran({ PA_CLI_FROM_SOURCES: '1' }), 'sources --help')
  })

  it('runs the sources once any file under src/ changed after the build, and the compiled CLI once built again', () => {
    stamp('src/cli/other.ts', AFTER)
    assert.equal(ran(), 'sources --help')
    stamp('dist/cli/main.js', new Date(AFTER.getTime() + 1000))
    assert.equal(ran(), 'compiled --help')
  })

  it('runs the sources when nothing is built, and dist alone where there are no sources', () => {
    rmSync(file('dist'), { recursive: true })
    assert.equal(ran(), 'sources --help')
    mkdirSync(file('dist/cli'), { recursive: true })
    writeFileSync(file('dist/cli/main.js'), "console.log('compiled', process.argv.slice(2).join(' '))\n")
    rmSync(file('src'), { recursive: true })
    assert.equal(ran(), 'compiled --help')
  })
})
