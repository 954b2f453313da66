import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { EXIT } from '../../src/cli/io.js'
import { runCliCaptured } from '../helpers/cli.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { ndjson, tempFiles, type TempFiles } from '../import/import-helpers.js'

/** `imports list` and `imports show` (README.md "Operator CLI", docs/import.md "Syncs"). */

const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/g
/** Replaces every timestamp (the one format, checked here) with `T`. */
const untimed = (text: string): string => text.replace(TIME, 'T')

const NOTHING = { brand: { created: 0, renamed: 0 }, account: { created: 0, updated: 0, moved: 0 }, daily: { inserted: 0, changed: 0 }, post: { added: 0, changed: 0 } }

for (const dialect of DIALECTS) {
  describe(`operator CLI: imports list, imports show (${dialect})`, () => {
    let testStore: TestStore
    let files: TempFiles
    let first: string
    let second: string
    const cli = async (...argv: string[]) => await runCliCaptured(argv, { DATABASE_URL: testStore.databaseUrl })

    before(async () => {
      testStore = await createTestStore(dialect)
      files = tempFiles()
      first = files.write('first.ndjson', ndjson(
        { kind: 'brand', brand_id: 1, brand_name: 'Acme' },
        { kind: 'account', platform: 'ig', account_id: 10, brand_id: 1, account_name: 'Acme IG' },
        { kind: 'account', platform: 'fb', account_id: 11, brand_id: 1, account_name: 'Acme FB' },
        { kind: 'daily', platform: 'ig', account_id: 10, date: '2026-11-01', views: 1 },
        { kind: 'daily', platform: 'fb', account_id: 11, date: '2026-11-01', views: 1 },
      ))
      second = files.write('second.ndjson', ndjson({ kind: 'daily', platform: 'ig', account_id: 10, date: '2026-11-01', views: 2 }))
    })
    after(async () => {
      await testStore.cleanup()
      files.cleanup()
    })

    it('says so when no import has committed yet', async () => {
      const run = await cli('imports', 'list')
      assert.equal(run.code, EXIT.OK)
      assert.equal(run.stderr, 'No syncs: no import has committed yet.\n')
      assert.deepEqual((await cli('imports', 'list', '--json')).json(), { syncs: [], has_more: false, next_before: null })
    })

    it('import names its sync; list pages newest first; show gives one sync whole', async () => {
      const imported = await cli('import', first, '--json')
      assert.equal(imported.code, EXIT.OK, imported.stderr)
      assert.equal(imported.json<{ sync_id: number }>().sync_id, 1)
      assert.match(imported.stderr, / as sync 1: 1 brand created, 2 accounts created, 2 daily rows inserted\n$/)
      const again = await cli('import', first)
      assert.match(again.stderr, / as sync 2: no changes\n$/)
      assert.equal((await cli('import', second, '--json')).json<{ sync_id: number }>().sync_id, 3)
      // A rejected import is no sync.
      const rejected = await cli('import', files.write('bad.ndjson', ndjson({ kind: 'daily', platform: 'ig', account_id: 99, date: '2026-11-01' })))
      assert.equal(rejected.code, EXIT.FAILURE)

      const listed = await cli('imports', 'list', '--json')
      assert.equal(listed.code, EXIT.OK, listed.stderr)
      const page = listed.json<{ syncs: Array<Record<string, unknown>>, has_more: boolean, next_before: number | null }>()
      for (const sync of page.syncs) {
        assert.match(String(sync.started_at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
        assert.ok(String(sync.started_at) <= String(sync.committed_at))
      }
      assert.deepEqual(JSON.parse(untimed(listed.stdout)), {
        syncs: [
          {
            sync_id: 3,
            started_at: 'T',
            committed_at: 'T',
            source_files: [second],
            counts: { read: { brand: 0, account: 0, daily: 1, post: 0 }, changed: { ...NOTHING, daily: { inserted: 0, changed: 1 } } },
            events: { count: 1, first_id: 'evt_5', last_id: 'evt_5' },
          },
          {
            sync_id: 2,
            started_at: 'T',
            committed_at: 'T',
            source_files: [first],
            counts: { read: { brand: 1, account: 2, daily: 2, post: 0 }, changed: NOTHING },
            events: { count: 0, first_id: null, last_id: null },
          },
          {
            sync_id: 1,
            started_at: 'T',
            committed_at: 'T',
            source_files: [first],
            counts: { read: { brand: 1, account: 2, daily: 2, post: 0 }, changed: { ...NOTHING, brand: { created: 1, renamed: 0 }, account: { created: 2, updated: 0, moved: 0 }, daily: { inserted: 2, changed: 0 } } },
            events: { count: 4, first_id: 'evt_1', last_id: 'evt_4' },
          },
        ],
        has_more: false,
        next_before: null,
      })

      const human = await cli('imports', 'list', '--limit', '2')
      assert.equal(human.stdout, '')
      assert.equal(untimed(human.stderr), [
        `sync 3  T  1 daily row changed; 1 event (evt_5)  [${second}]`,
        `sync 2  T  no changes; no events  [${first}]`,
        'More: imports list --before 2',
        '',
      ].join('\n'))
      const firstPage = (await cli('imports', 'list', '--limit', '2', '--json')).json<{ syncs: Array<{ sync_id: number }>, has_more: boolean, next_before: number | null }>()
      assert.deepEqual([firstPage.syncs.map((sync) => sync.sync_id), firstPage.has_more, firstPage.next_before], [[3, 2], true, 2])
      const nextPage = (await cli('imports', 'list', '--limit', '2', '--before', '2', '--json')).json<{ syncs: Array<{ sync_id: number }>, has_more: boolean, next_before: number | null }>()
      assert.deepEqual([nextPage.syncs.map((sync) => sync.sync_id), nextPage.has_more, nextPage.next_before], [[1], false, null])
      assert.equal((await cli('imports', 'list', '--before', '1')).stderr, 'No syncs before 1.\n')

      const shown = await cli('imports', 'show', '1', '--json')
      assert.equal(shown.code, EXIT.OK, shown.stderr)
      assert.deepEqual(JSON.parse(untimed(shown.stdout)), {
        sync_id: 1,
        started_at: 'T',
        committed_at: 'T',
        source_files: [first],
        counts: { read: { brand: 1, account: 2, daily: 2, post: 0 }, changed: { ...NOTHING, brand: { created: 1, renamed: 0 }, account: { created: 2, updated: 0, moved: 0 }, daily: { inserted: 2, changed: 0 } } },
        events: { count: 4, first_id: 'evt_1', last_id: 'evt_4' },
        brand_ids: [1],
        accounts: [{ platform: 'fb', account_id: 11 }, { platform: 'ig', account_id: 10 }],
      })
      const shownHuman = await cli('imports', 'show', '3')
      assert.equal(shownHuman.stdout, '')
      assert.equal(untimed(shownHuman.stderr), [
        'sync 3',
        '  started    T',
        '  committed  T',
        `  sources    ${second}`,
        '  read       0 brands, 0 accounts, 1 daily row, 0 posts',
        '  changed    1 daily row changed',
        '  events     1 event (evt_5)',
        '  brands     1',
        '  accounts   ig:10',
        '',
      ].join('\n'))
    })

    it('an unknown id is NOT_FOUND (exit 1); a bad id or limit is a usage error (exit 2)', async () => {
      const unknown = await cli('imports', 'show', '99', '--json')
      assert.equal(unknown.code, EXIT.FAILURE)
      assert.deepEqual(unknown.json(), { error: { code: 'NOT_FOUND', message: 'No sync with id 99', exit_code: 1 } })
      assert.equal((await cli('imports', 'show', '99')).stderr, 'error: No sync with id 99\n')
      for (const argv of [['show', 'x'], ['show', '0'], ['list', '--limit', '0'], ['list', '--limit', '101'], ['list', '--limit', '2.5'], ['list', '--before', 'x'], ['list', '--since', '1']]) {
        const run = await cli('imports', ...argv, '--json')
        assert.equal(run.code, EXIT.USAGE, argv.join(' '))
        assert.equal(run.json<{ error: { code: string } }>().error.code, 'USAGE_ERROR', argv.join(' '))
      }
    })

    it('has --help for the group and each command', async () => {
      for (const argv of [['imports', '--help'], ['imports', 'list', '--help'], ['imports', 'show', '--help']]) {
        const run = await cli(...argv)
        assert.equal(run.code, EXIT.OK)
        assert.match(run.stderr, /^Usage: partner-analytics imports/)
      }
      assert.match((await cli('imports', 'list', '--help')).stderr, /--limit <n>[\s\S]*--before <sync_id>[\s\S]*--json/)
    })
  })
}
