import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { after, before, beforeEach, describe, it } from 'node:test'
import { sql } from 'kysely'
import { EXIT } from '../../src/cli/io.js'
import { addDays } from '../../src/domain/dates.js'
import type { Store } from '../../src/storage/db.js'
import { runCliCaptured } from '../helpers/cli.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { countRows, emptyStore, FIXTURES, importFiles, ndjson, tempFiles, type TempFiles } from './import-helpers.js'

/**
 * `import -` (standard input, streamed) and all-or-nothing at a size larger than any batch the
 * writers hold in memory (PostgreSQL stages 20,000 rows at a time): a bad record near the end, a
 * write the store refuses near the end, and the importing process killed mid-stream all leave the
 * store exactly as it was — rows, read model, syncs, change events, coverage.
 */

const REPO = join(import.meta.dirname, '..', '..')
const BIN = join(REPO, 'bin', 'partner-analytics.js')
const ENV = { JWT_SECRET: 'stdin-test-secret-0123456789abcdef0123' }

/** Accounts × days daily rows: 50 × 1,000 = 50,000, over two and a half batches of the PostgreSQL writer. */
const ACCOUNTS = 50
const DAYS = 1000

/** An import of one brand, ACCOUNTS accounts and their DAYS days each, one NDJSON line at a time. */
function * largeImport (views = (i: number) => i % 1000): Generator<string> {
  yield JSON.stringify({ kind: 'brand', brand_id: 7, brand_name: 'Large' })
  for (let a = 1; a <= ACCOUNTS; a += 1) yield JSON.stringify({ kind: 'account', platform: 'fb', account_id: 700 + a, brand_id: 7, account_name: `Large ${a}` })
  let i = 0
  for (let day = 0; day < DAYS; day += 1) {
    const date = addDays('2020-01-01', day)
    for (let a = 1; a <= ACCOUNTS; a += 1) {
      yield JSON.stringify({ kind: 'daily', platform: 'fb', account_id: 700 + a, date, views: views(i), followers: 100 + day })
      i += 1
    }
  }
}

/** The lines of largeImport with line `bad` (1-based) replaced. */
function withLine (lines: string[], bad: number, text: string): string {
  const copy = [...lines]
  copy[bad - 1] = text
  return copy.join('\n') + '\n'
}

/** Everything an import writes, to compare before and after one that must not have happened. */
async function everything (store: Store) {
  const count = async (table: 'brand_daily' | 'brand_monthly' | 'account_monthly' | 'syncs' | 'change_events' | 'account_coverage' | 'webhook_deliveries') =>
    Number((await store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
  return {
    rows: await countRows(store),
    views: Number((await store.db.selectFrom('daily_metrics').select((eb) => eb.fn.sum<number>('views').as('s')).executeTakeFirstOrThrow()).s ?? 0),
    brandDays: await count('brand_daily'),
    brandMonths: await count('brand_monthly'),
    accountMonths: await count('account_monthly'),
    syncs: await count('syncs'),
    events: await count('change_events'),
    coverage: await count('account_coverage'),
    deliveries: await count('webhook_deliveries'),
  }
}

const SMALL = ndjson(
  { kind: 'brand', brand_id: 1, brand_name: 'Small' },
  { kind: 'account', platform: 'fb', account_id: 10, brand_id: 1, account_name: 'Small FB' },
  { kind: 'daily', platform: 'fb', account_id: 10, date: '2026-11-01', views: 3 },
)

for (const dialect of DIALECTS) {
  describe(`import - and large all-or-nothing imports (${dialect})`, () => {
    let testStore: TestStore
    let files: TempFiles
    let env: Record<string, string>
    before(async () => {
      testStore = await createTestStore(dialect)
      files = tempFiles()
      env = { ...ENV, DATABASE_URL: testStore.databaseUrl }
    })
    after(async () => {
      await testStore.cleanup()
      files.cleanup()
    })
    beforeEach(async () => { await emptyStore(testStore.store) })

    it('import - reads NDJSON from standard input; errors and the sync name it "stdin"', async () => {
      const run = await runCliCaptured(['import', '-', '--json'], env, Readable.from([SMALL]))
      assert.equal(run.code, EXIT.OK, run.stderr)
      assert.deepEqual(run.json<{ counts: unknown }>().counts, { brand: 1, account: 1, daily: 1, post: 0 })
      assert.deepEqual(await countRows(testStore.store), { brands: 1, accounts: 1, daily: 1, posts: 0 })
      const sync = await testStore.store.db.selectFrom('syncs').select('source_files').orderBy('sync_id', 'desc').executeTakeFirstOrThrow()
      assert.match(String(sync.source_files), /"stdin"/)

      const bad = await runCliCaptured(['import', '-'], env, Readable.from(['{"kind":"brand","brand_id":2,"brand_name":"B"}\n{"kind":"brand","brand_id":-2,"brand_name":"B"}\n']))
      assert.equal(bad.code, EXIT.FAILURE)
      assert.equal(bad.stderr, 'stdin:2: brand_id must be a positive integer (got -2)\nerror: import rejected: 1 error; nothing was written\n')
      assert.deepEqual(await countRows(testStore.store), { brands: 1, accounts: 1, daily: 1, posts: 0 })
    })

    it('import - reads CSV from standard input, in chunks that split lines, beside files; - only once', async () => {
      const accounts = files.write('accounts.ndjson', SMALL)
      const csv = '\uFEFFplatform,account_id,date,views\r\nfb,10,2026-11-02,4\r\n\r\nfacebook,10,2026-11-03,5\r\n'
      // Split a byte at a time through the header, so the format is chosen from a line seen whole.
      const chunks = [...Buffer.from(csv).subarray(0, 40)].map((byte) => Buffer.from([byte])).concat([Buffer.from(csv).subarray(40)])
      const run = await runCliCaptured(['import', accounts, '-', '--json'], env, Readable.from(chunks))
      assert.equal(run.code, EXIT.OK, run.stderr)
      assert.deepEqual(run.json<{ counts: unknown }>().counts, { brand: 1, account: 1, daily: 3, post: 0 })
      assert.deepEqual(await countRows(testStore.store), { brands: 1, accounts: 1, daily: 3, posts: 0 })

      const twice = await runCliCaptured(['import', '-', '-'], env, Readable.from([SMALL]))
      assert.equal(twice.code, EXIT.USAGE)
      assert.equal(twice.stderr, 'error: standard input (-) can be given only once\n')
    })

    it('a bad record near the end of an import larger than any batch: rejected, nothing written', { timeout: 120_000 }, async () => {
      const { store } = testStore
      await importFiles(store, [join(FIXTURES, 'valid.ndjson')])
      const before = await everything(store)
      const lines = [...largeImport()]
      const bad = lines.length - 3
      const path = files.write('large-bad.ndjson', withLine(lines, bad, '{"kind":"daily","platform":"fb","account_id":701,"date":"2026-02-30","views":1}'))
      const outcome = await importFiles(store, [path])
      assert.deepEqual(outcome.errors, [`${path}:${bad}: date must be a real calendar date YYYY-MM-DD (got "2026-02-30")`])
      assert.deepEqual(await everything(store), before)
      // The same import, piped in: the same verdict, still nothing written.
      const piped = await runCliCaptured(['import', '-'], env, Readable.from(withLine(lines, bad, '{"kind":"daily","platform":"fb","account_id":701,"date":"2026-02-30","views":1}')))
      assert.equal(piped.code, EXIT.FAILURE)
      assert.equal(piped.stderr.split('\n')[0], `stdin:${bad}: date must be a real calendar date YYYY-MM-DD (got "2026-02-30")`)
      assert.deepEqual(await everything(store), before)
      // Without the bad line it goes through whole: every row, every account-month of the read model.
      const good = await runCliCaptured(['import', '-', '--json'], env, Readable.from(lines.map((line) => line + '\n')))
      assert.equal(good.code, EXIT.OK, good.stderr)
      const after = await everything(store)
      assert.equal(after.rows.daily, before.rows.daily + ACCOUNTS * DAYS)
      assert.equal(after.syncs, before.syncs + 1)
      assert.equal(after.coverage, before.coverage + ACCOUNTS)
    })

    it('a write the store refuses near the end of a large import: rolled back whole, and the next import goes through', { timeout: 120_000 }, async () => {
      const { store } = testStore
      await importFiles(store, [join(FIXTURES, 'valid.ndjson')])
      const before = await everything(store)
      // The store refuses views = 123456789, on the third-to-last daily row only.
      const refused = ACCOUNTS * DAYS - 3
      const path = files.write('large-refused.ndjson', [...largeImport((i) => i === refused ? 123_456_789 : i % 1000)].join('\n') + '\n')
      await refuse(testStore, true)
      try {
        const outcome = await importFiles(store, [path]).catch((error: unknown) => error)
        assert.match(String(outcome), /refused by the test trigger/)
        assert.deepEqual(await everything(store), before)
      } finally {
        await refuse(testStore, false)
      }
      await importFiles(store, [path])
      assert.equal((await everything(store)).rows.daily, before.rows.daily + ACCOUNTS * DAYS)
    })

    it('the importing process killed mid-stream leaves the store as it was', { timeout: 120_000 }, async () => {
      const { store } = testStore
      await importFiles(store, [join(FIXTURES, 'valid.ndjson')])
      const before = await everything(store)
      const child = spawn(process.execPath, [BIN, 'import', '-'], { cwd: REPO, stdio: ['pipe', 'ignore', 'pipe'], env: { ...process.env, ...env, LOG_LEVEL: 'silent' } })
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
      const closed = once(child, 'close')
      // Everything but the end: the child has read (and written, in its transaction) all of it
      // once the pipe has drained, and is waiting for more.
      const lines = [...largeImport()]
      for (const line of lines.slice(0, -10)) {
        if (!child.stdin.write(line + '\n')) await once(child.stdin, 'drain')
      }
      await new Promise<void>((resolve) => child.stdin.write('', () => resolve()))
      child.kill('SIGKILL')
      const [code, signal] = await closed as [number | null, string | null]
      assert.equal(signal, 'SIGKILL', `the import ended before it was killed: ${String(code)} ${stderr}`)
      assert.deepEqual(await everything(store), before)
      // Nothing was left locked or half-written: the whole import now goes through.
      const run = await runCliCaptured(['import', '-'], env, Readable.from(lines.map((line) => line + '\n')))
      assert.equal(run.code, EXIT.OK, run.stderr)
      assert.equal((await everything(store)).rows.daily, before.rows.daily + ACCOUNTS * DAYS)
    })
  })
}

describe('partner-analytics import - in a shell pipe', () => {
  it('streams a generator\'s output into the store', { timeout: 60_000 }, async () => {
    const testStore = await createTestStore('sqlite')
    try {
      const child = spawn(process.execPath, [BIN, 'import', '-'], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...ENV, DATABASE_URL: testStore.databaseUrl, LOG_LEVEL: 'silent' } })
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
      child.stdout.resume()
      const closed = once(child, 'close')
      Readable.from((function * () { for (const line of largeImport()) yield line + '\n' })()).pipe(child.stdin)
      const [code] = await closed as [number | null]
      assert.equal(code, EXIT.OK, stderr)
      assert.match(stderr, new RegExp(`^Imported ${1 + ACCOUNTS + ACCOUNTS * DAYS} records \\(1 brand, ${ACCOUNTS} accounts, ${ACCOUNTS * DAYS} daily rows, 0 posts\\)`))
      assert.equal((await countRows(testStore.store)).daily, ACCOUNTS * DAYS)
    } finally {
      await testStore.cleanup()
    }
  })
})

/** A trigger that makes the store refuse a daily row with views = 123456789 (a write failing near the end). */
async function refuse (test: TestStore, on: boolean): Promise<void> {
  const { db, dialect } = test.store
  if (dialect === 'sqlite') {
    if (on) await sql`create trigger refuse_big before insert on daily_metrics when new.views = 123456789 begin select raise(abort, 'refused by the test trigger'); end`.execute(db)
    else await sql`drop trigger refuse_big`.execute(db)
    return
  }
  if (on) {
    await sql`create function refuse_big() returns trigger language plpgsql as $$ begin if new.views = 123456789 then raise exception 'refused by the test trigger'; end if; return new; end $$`.execute(db)
    await sql`create trigger refuse_big before insert on daily_metrics for each row execute function refuse_big()`.execute(db)
  } else {
    await sql`drop trigger refuse_big on daily_metrics`.execute(db)
    await sql`drop function refuse_big()`.execute(db)
  }
}
