import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { EXIT } from '../../src/cli/io.js'
import { runCliCaptured } from '../helpers/cli.js'
import { createEmptyStore, DIALECTS, type EmptyStore } from '../helpers/stores.js'

/** `partner-analytics migrate [--json]` (README.md "Operator CLI"): what it prints, the first time and after. */

/** Every migration, in the order they apply (src/storage/migrations/), written out. */
const MIGRATIONS = [
  '2026_11_21_0000_initial_schema',
  '2026_11_22_0000_post_snapshots',
  '2026_11_23_0000_deferred_references',
  '2026_11_23_0100_read_model',
  '2026_11_24_0000_daily_entry_json',
  '2026_11_25_0000_change_feed',
  '2026_11_25_0100_sync_events',
  '2026_11_25_0300_change_feed_sync_index',
  '2026_11_25_0400_webhooks',
  '2026_11_25_0500_monthly_entry_json',
  '2026_11_28_0000_export_jobs',
  '2026_11_29_0000_brand_daily_running',
]

for (const dialect of DIALECTS) {
  describe(`operator CLI: migrate (${dialect})`, () => {
    let human: EmptyStore
    let json: EmptyStore
    before(async () => {
      human = await createEmptyStore(dialect)
      json = await createEmptyStore(dialect)
    })
    after(async () => {
      await human.cleanup()
      await json.cleanup()
    })

    it('says which migrations it applied on which store, then that the schema is up to date; nothing on stdout', async () => {
      const first = await runCliCaptured(['migrate'], { DATABASE_URL: human.databaseUrl })
      assert.deepEqual([first.code, first.stdout, first.stderr], [EXIT.OK, '', `Applied ${MIGRATIONS.length} migration(s) on ${dialect}: ${MIGRATIONS.join(', ')}\n`])
      const again = await runCliCaptured(['migrate'], { DATABASE_URL: human.databaseUrl })
      assert.deepEqual([again.code, again.stdout, again.stderr], [EXIT.OK, '', `Schema is up to date (${dialect}).\n`])
      // The schema is really there: a command that needs it works on the store.
      const users = await runCliCaptured(['users', 'list', '--json'], { DATABASE_URL: human.databaseUrl })
      assert.equal(users.code, EXIT.OK, users.stderr)
      assert.deepEqual(users.json(), { users: [] })
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(human.open().db)
      assert.deepEqual(applied.rows.map((row) => row.name), MIGRATIONS)
    })

    it('--json prints one object on stdout: the migrations applied, none the second time', async () => {
      const first = await runCliCaptured(['migrate', '--json'], { DATABASE_URL: json.databaseUrl })
      assert.equal(first.code, EXIT.OK, first.stderr)
      assert.equal(first.stdout, `${JSON.stringify({ applied: MIGRATIONS })}\n`)
      assert.equal(first.stderr, '')
      const again = await runCliCaptured(['migrate', '--json'], { DATABASE_URL: json.databaseUrl })
      assert.deepEqual([again.code, again.stdout, again.stderr], [EXIT.OK, '{"applied":[]}\n', ''])
    })
  })
}
