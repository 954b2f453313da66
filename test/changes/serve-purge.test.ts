import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { SHUTDOWN_GRACE_MS } from '../../src/cli/commands/serve.js'
import { readChangeClock } from '../../src/storage/changes/change-log.repository.js'
import { brandRange, insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { exitOf, freePort, waitFor } from '../helpers/processes.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { recordSyncs } from './feed-fixtures.js'

/**
 * `serve` starts the change feed's purge (and nothing else does): a server process on a store
 * holding events older than CHANGES_RETENTION_DAYS removes them soon after it starts, says so in
 * its log, and still stops cleanly on SIGTERM.
 */

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
const TSX = import.meta.resolve('tsx')
const DAY = 86_400_000

for (const dialect of DIALECTS) {
  describe(`serve purges expired change events (${dialect})`, () => {
    let test: TestStore
    before(async () => {
      test = await createTestStore(dialect)
      await insertBrandsWithAccounts(test.store.db, brandRange(1, 1, 1))
    })
    after(async () => { await test.cleanup() })

    it('removes the events older than the retention within seconds of starting, logs it, and stops on SIGTERM', async () => {
      const db = test.store.db
      const iso = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString()
      await recordSyncs(db, { count: 5, perSync: 3, brandIds: [1], createdAt: iso(12) })
      await recordSyncs(db, { count: 2, perSync: 1, brandIds: [1], createdAt: iso(2) })
      const port = await freePort()
      const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve'], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: test.databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', CHANGES_RETENTION_DAYS: '10', JWT_SECRET: 'serve-purge-secret-serve-purge-secret-0123' },
      })
      let stdout = ''
      child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
      child.stderr.on('data', () => {})
      // Whether the body got through: a failure inside it must not be replaced by the exit check.
      let served = false
      try {
        // Starting (tsx compiling the app, migrating) is not what is measured: on a busy machine it
        // alone can take tens of seconds. The purge's "within seconds" is counted from listening.
        await waitFor('the server to listen', () => stdout.includes('Server listening at'), 90_000)
        await waitFor('the purge', async () => Number((await db.selectFrom('change_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n) === 2, 30_000)
        assert.equal((await readChangeClock(db)).purgedThroughEventId, 15)
        await waitFor('the log line', () => stdout.includes('change feed: expired events purged'), 5000)
        const line = stdout.split('\n').find((text) => text.includes('expired events purged')) as string
        assert.deepEqual([JSON.parse(line).deleted, JSON.parse(line).level], [15, 30])
        served = true
      } finally {
        // The log line above is written after the SIGTERM handler is installed, so from here on the
        // signal asks for the graceful stop; its grace period bounds it (SHUTDOWN_GRACE_MS).
        child.kill('SIGTERM')
        const code = await exitOf(child, SHUTDOWN_GRACE_MS + 10_000)
        if (code === undefined) child.kill('SIGKILL')
        if (served) assert.equal(code, 0, `exit ${String(code)} (signal ${String(child.signalCode)}); log:\n${stdout.slice(-2000)}`)
      }
    })
  })
}
