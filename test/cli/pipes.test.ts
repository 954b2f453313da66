import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { createTestStore, type TestStore } from '../helpers/stores.js'

/**
 * The documented ways to run the CLI pipe cleanly: stdout holds the command's JSON and nothing
 * else (`npm run -s cli -- …`: -s keeps npm's own banner off stdout; `partner-analytics`, the bin
 * `npm link` puts on the PATH, which runs the sources in a checkout).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

async function run (command: string, args: string[], env: Record<string, string>): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const child = spawn(command, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  clearTimeout(timer)
  return { code, stdout, stderr }
}

describe('operator CLI: the documented commands pipe cleanly', () => {
  let test: TestStore
  before(async () => {
    test = await createTestStore('sqlite')
    await test.store.db.insertInto('brands').values({ brand_id: 1, brand_name: 'Acme', updated_at: '2026-11-01T00:00:00Z' }).execute()
  })
  after(async () => { await test.cleanup() })

  const expected = { brands: [{ brand_id: 1, brand_name: 'Acme', accounts: 0 }] }

  it('npm run -s cli -- … prints only the JSON on stdout', async () => {
    const result = await run('npm', ['run', '-s', 'cli', '--', 'brands', 'list', '--json'], { DATABASE_URL: test.databaseUrl })
    assert.equal(result.code, 0, result.stderr)
    assert.deepEqual(JSON.parse(result.stdout), expected)
  })

  it('the partner-analytics bin prints only the JSON on stdout, and a failure as one JSON error', async () => {
    const bin = fileURLToPath(new URL('../../bin/partner-analytics.js', import.meta.url))
    const result = await run(process.execPath, [bin, 'brands', 'list', '--json'], { DATABASE_URL: test.databaseUrl })
    assert.equal(result.code, 0, result.stderr)
    assert.deepEqual(JSON.parse(result.stdout), expected)
    const failed = await run(process.execPath, [bin, 'users', 'grant', 'usr_nope', '--brands', '1', '--json'], { DATABASE_URL: test.databaseUrl })
    assert.equal(failed.code, 1)
    assert.deepEqual(JSON.parse(failed.stdout), { error: { code: 'NOT_FOUND', message: 'No user with id usr_nope', exit_code: 1 } })
  })
})
