import { describe, it, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * The Python client's own suite (clients/python/tests, pytest) as part of `npm test`: it starts
 * its real servers itself (docs/client-python.md, "How it is built and tested"). The interpreter
 * is the first of PA_TEST_PYTHON, Debian's /usr/bin/python3 (python3-pytest) and the python3 on
 * the PATH that can import pytest. A failure shows pytest's whole output.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const TESTS = 'clients/python/tests'

function python (): string {
  const candidates = [process.env.PA_TEST_PYTHON, '/usr/bin/python3', 'python3'].filter((candidate): candidate is string => candidate !== undefined && candidate !== '')
  for (const candidate of candidates) {
    if (spawnSync(candidate, ['-c', 'import pytest'], { stdio: 'ignore', timeout: 60_000 }).status === 0) return candidate
  }
  assert.fail(`no Python with pytest among ${candidates.join(', ')}: apt-get install python3-pytest (or set PA_TEST_PYTHON)`)
}

function pytest (t: TestContext, args: string[]): void {
  const interpreter = python()
  const run = spawnSync(interpreter, ['-m', 'pytest', '-p', 'no:cacheprovider', '-q', '-rfE', ...args], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    // Every wait inside is bounded; this bounds the whole run too.
    timeout: 30 * 60_000,
    env: { ...process.env, PA_TEST_NODE: process.execPath, PYTHONDONTWRITEBYTECODE: '1' },
  })
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`
  const summary = output.trim().split('\n').pop() ?? ''
  assert.equal(run.status, 0, `pytest (${interpreter}) ${run.error !== undefined ? `failed to run: ${run.error.message}` : `exited ${String(run.status ?? run.signal)}`}:\n${output}`)
  t.diagnostic(`${interpreter}: ${summary}`)
}

describe('Python client (pytest)', () => {
  // One run: the servers, the PostgreSQL schema and the installed package are made once for every file.
  it('passes its tests against real servers, the change feed included', (t) => {
    pytest(t, [TESTS])
  })
})
