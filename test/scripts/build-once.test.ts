import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { buildOnce, type BuildStep } from '../helpers/build-once.js'

/**
 * test/helpers/build-once.ts, which compiles dist/ for the test files that start the built
 * `serve` (two files at a time): a caller arriving while another's build runs gets the output
 * only once the build is done, though the build's first file already looks fresh (tsc writes
 * dist/cli/main.js before the modules it imports); and a lock left by a killed run is taken over.
 */

const root = mkdtempSync(join(tmpdir(), 'pa-build-once-'))
after(() => { rmSync(root, { recursive: true, force: true }) })

/** A build like tsc's: the output file first, then (once `release` is called) the module it needs. */
function gatedStep (dir: string): { step: BuildStep, dependency: string, builds: () => number, release: () => void, started: Promise<void> } {
  mkdirSync(join(dir, 'src'), { recursive: true })
  writeFileSync(join(dir, 'src', 'main.ts'), 'source')
  const dependency = join(dir, 'out', 'dependency.js')
  let builds = 0
  let release = (): void => {}
  let started = (): void => {}
  const startedPromise = new Promise<void>((resolve) => { started = resolve })
  const step: BuildStep = {
    name: 'gated build',
    output: join(dir, 'out', 'main.js'),
    sources: [join(dir, 'src')],
    lock: join(dir, 'out', '.lock'),
    staleMs: 300_000,
    build: async () => {
      builds++
      writeFileSync(join(dir, 'out', 'main.js'), 'import "./dependency.js"')
      started()
      await new Promise<void>((resolve) => { release = resolve })
      writeFileSync(dependency, 'export {}')
    },
  }
  return { step, dependency, builds: () => builds, release: () => { release() }, started: startedPromise }
}

describe('buildOnce (the lock around the test builds)', () => {
  it('a caller arriving mid-build returns only once the whole build is written, and nothing is built twice', { timeout: 60_000 }, async () => {
    const { step, dependency, builds, release, started } = gatedStep(join(root, 'mid-build'))
    const first = buildOnce(step)
    await started
    // The output is already newer than the sources here, as dist/cli/main.js is while tsc emits.
    const seenBySecond = buildOnce(step).then(() => existsSync(dependency) ? 'complete' : 'half-built')
    await new Promise((resolve) => setImmediate(resolve))
    release()
    await first
    assert.equal(await seenBySecond, 'complete')
    assert.equal(builds(), 1, 'built once')
  })

  it('a lock whose process has exited is taken over at once', { timeout: 60_000 }, async () => {
    const { step, dependency, builds, release, started } = gatedStep(join(root, 'killed-run'))
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
    mkdirSync(step.lock, { recursive: true })
    writeFileSync(join(step.lock, 'pid'), gone.stdout)
    const built = buildOnce(step)
    await started
    release()
    await built
    assert.equal(builds(), 1, 'built once, by this caller')
    assert.ok(existsSync(dependency), 'the build completed')
    assert.ok(!existsSync(step.lock), 'the lock is released')
  })
})
