import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, it } from 'node:test'

/**
 * `npm test` checks PostgreSQL and Redis before running anything: with either unreachable it says
 * which, how to start it or which variable to set, and exits 1 without starting the suite.
 */

const SCRIPT = fileURLToPath(new URL('../../scripts/run-tests.mjs', import.meta.url))
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

async function runScript (env: Record<string, string>): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const child = spawn(process.execPath, [SCRIPT, 'test/no-such-file.test.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  clearTimeout(timer)
  return { code, stdout, stderr }
}

const POSTGRES_START = /^ {2}start it: pg_ctlcluster --skip-systemctl-redirect \S+ main start$/

describe('npm test: services checked first', () => {
  it('names Redis when it is down, says how to start it, and runs nothing', async () => {
    const run = await runScript({
      TEST_REDIS_URL: 'redis://127.0.0.1:1',
      ...(process.env.TEST_DATABASE_URL === undefined ? {} : { TEST_DATABASE_URL: process.env.TEST_DATABASE_URL }),
    })
    assert.equal(run.code, 1)
    assert.equal(run.stdout, '')
    assert.equal(run.stderr, [
      'npm test needs PostgreSQL and Redis; no test was run because:',
      '- Redis at redis://127.0.0.1:1 does not answer: connect ECONNREFUSED 127.0.0.1:1',
      '  start it: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
      '  or set TEST_REDIS_URL to a Redis server the tests may write to',
      '(bash .ci/run starts both when they are down, then runs the whole check.)',
      '',
    ].join('\n'))
  })

  it('names PostgreSQL (password hidden) and Redis when both are down', async () => {
    const run = await runScript({ TEST_REDIS_URL: 'redis://127.0.0.1:1', TEST_DATABASE_URL: 'postgres://tester:s3cret@127.0.0.1:1/test' })
    assert.equal(run.code, 1)
    assert.equal(run.stdout, '')
    const lines = run.stderr.split('\n')
    assert.equal(lines[0], 'npm test needs PostgreSQL and Redis; no test was run because:')
    assert.equal(lines[1], '- PostgreSQL at postgres://tester:***@127.0.0.1:1/test does not answer: connect ECONNREFUSED 127.0.0.1:1')
    assert.match(lines[2] ?? '', POSTGRES_START)
    assert.equal(lines[3], '  or set TEST_DATABASE_URL to a PostgreSQL database the tests may create schemas in')
    assert.equal(lines[4], '- Redis at redis://127.0.0.1:1 does not answer: connect ECONNREFUSED 127.0.0.1:1')
    assert.ok(!run.stderr.includes('s3cret'))
    assert.equal(lines.length, 9)
  })
})
