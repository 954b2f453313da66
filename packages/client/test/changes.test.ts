import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { importEvent, recordSync, recordUnsynced, wire, type WrittenEvent } from '../../../test/changes/feed-fixtures.js'
import { DIALECTS } from '../../../test/helpers/stores.js'
import { CursorExpiredError, PartnerAnalyticsClient, type ChangeEvent, type ChangesPage } from '../src/index.js'
import { runCaptured } from './export-helpers.js'
import { startServer, type RunningServer } from './server.js'

/**
 * The client's change feed against a real server: typed pages, the iterator that hands back each
 * page's cursor and stores nothing, following with polls, CursorExpiredError; and
 * `partner-analytics-export changes` (NDJSON, the cursor on stderr and in --cursor-file, exit 3 on
 * an expired cursor). The partner is granted brands 1 and 2 (server.ts).
 */

const DAY = 86_400_000

for (const dialect of DIALECTS) {
  describe(`the change feed in the client and the export (${dialect})`, () => {
    let server: RunningServer
    let dir: string
    const written: WrittenEvent[] = []
    const client = (options: Partial<ConstructorParameters<typeof PartnerAnalyticsClient>[0]> = {}) => new PartnerAnalyticsClient({
      baseUrl: server.baseUrl, clientKey: server.partner.clientKey, secretKey: server.partner.secretKey, ...options,
    })
    const env = () => ({ PA_API_CLIENT_KEY: server.partner.clientKey, PA_API_SECRET_KEY: server.partner.secretKey, PA_BASE_URL: server.baseUrl })
    const record = async (brands: number[], createdAt = '2026-11-25T10:00:00Z'): Promise<WrittenEvent[]> => {
      const events = await recordSync(server.testStore.store.db, brands.map((brand, i) => importEvent(brand, written.length + i)), createdAt)
      written.push(...events)
      return events
    }
    const visible = (events: WrittenEvent[]) => events.filter((event) => event.userId === null ? [1, 2].includes(event.brandId) : event.userId === server.partner.userId).map(wire)

    before(async () => {
      server = await startServer(dialect)
      dir = mkdtempSync(join(tmpdir(), 'pa-feed-'))
      await record([1, 2, 3, 1, 2, 3, 1, 2])
      written.push(...await recordUnsynced(server.testStore.store.db, [{ type: 'access.granted', userId: server.partner.userId, data: { brand_id: 2 } }], '2026-11-25T10:00:01Z'))
      await record([2, 3, 2])
    })
    after(async () => {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('changes() returns a typed page; changePages() walks to the head, each page with the cursor that continues after it', async () => {
      const page: ChangesPage = await client().changes({ limit: 3, type: ['analytics.updated', 'access.granted'] })
      const first: ChangeEvent | undefined = page.data[0]
      if (first?.type === 'analytics.updated') assert.equal(typeof first.data.accounts[0]?.dates[0]?.since, 'string')
      const pages: ChangesPage[] = []
      for await (const each of client().changePages({ limit: 4 })) pages.push(each)
      assert.deepEqual(pages.flatMap((each) => each.data), visible(written))
      assert.deepEqual(pages.map((each) => each.has_more), [true, true, false])
      // Nothing is stored by the client: a new client given the second page's cursor continues after it.
      const resumed: ChangeEvent[] = []
      for await (const each of client().changePages({ limit: 4, cursor: pages[1]?.next_cursor })) resumed.push(...each.data)
      assert.deepEqual(resumed, pages[2]?.data)
    })

    it('start: latest gives the head; with follow, waits and polls, and yields what arrives', async () => {
      const head = await client().changes({ start: 'latest' })
      assert.deepEqual([head.data, head.has_more], [[], false])
      const sleeps: number[] = []
      let fresh: WrittenEvent[] = []
      const following = client({
        // The poll's wait: new events arrive meanwhile.
        sleep: async (ms) => { sleeps.push(ms); if (sleeps.length === 1) fresh = await record([1, 3, 2]) },
      })
      const seen: ChangeEvent[] = []
      let polls = 0
      for await (const page of following.changePages({ cursor: head.next_cursor }, { follow: true, pollIntervalMs: 1234 })) {
        seen.push(...page.data)
        if (++polls === 2) break
      }
      assert.deepEqual(sleeps, [1234])
      assert.deepEqual(seen, visible(fresh))
    })

    it('follow ends at once when the client\'s signal aborts during the wait', async () => {
      const controller = new AbortController()
      const iterate = async () => { for await (const page of client({ signal: controller.signal }).changePages({ start: 'latest' }, { follow: true, pollIntervalMs: 60_000 })) assert.ok(page.next_cursor !== '') }
      const done = iterate()
      setTimeout(() => { controller.abort(new Error('stopped by the caller')) }, 200)
      const started = Date.now()
      await assert.rejects(done, /stopped by the caller/)
      assert.ok(Date.now() - started < 10_000, 'the 60 s wait was cut short')
    })

    it('throws CursorExpiredError for a cursor older than the retention', async () => {
      const head = await client().changes({ start: 'latest' })
      const later = await server.startSibling({}, { now: () => Date.now() + 91 * DAY })
      const expired = await new PartnerAnalyticsClient({ baseUrl: later.baseUrl, clientKey: server.partner.clientKey, secretKey: server.partner.secretKey })
        .changes({ cursor: head.next_cursor }).catch((error: unknown) => error)
      await later.close()
      assert.ok(expired instanceof CursorExpiredError)
      assert.deepEqual([expired.status, expired.errorCode], [410, 'CURSOR_EXPIRED'])
      assert.match(expired.message, /Resynchronise/)
    })

    it('export changes: NDJSON of every event to the head, the cursor on the last line of stderr', async () => {
      const result = await runCaptured(['changes', '--page-size', '2'], { env: env() })
      assert.equal(result.code, 0, result.stderr)
      assert.deepEqual(result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown), visible(written))
      const lines = result.stderr.trimEnd().split('\n')
      assert.equal(lines[0], `exported ${visible(written).length} events to standard output`)
      const cursor = /^next_cursor: (\S+)$/.exec(lines[1] ?? '')?.[1]
      assert.ok(cursor !== undefined, result.stderr)
      assert.equal(lines.length, 2)
      const none = await runCaptured(['changes', '--cursor', cursor], { env: env() })
      assert.deepEqual([none.code, none.stdout, none.stderr.split('\n')[0]], [0, '', 'exported 0 events to standard output'])
      const typed = await runCaptured(['changes', '--type', 'access.granted', '--brand-id', '2'], { env: env() })
      assert.deepEqual(typed.stdout.trimEnd().split('\n').map((line) => JSON.parse(line).type as string), ['access.granted'])
    })

    it('export changes --cursor-file: the first run stores the head, the next exports exactly what followed, a failed run leaves the file alone', async () => {
      const file = join(dir, 'feed.cursor')
      const out = join(dir, 'changes.ndjson')
      const first = await runCaptured(['changes', '--start', 'latest', '--cursor-file', file], { env: env() })
      assert.deepEqual([first.code, first.stdout], [0, ''])
      const stored = readFileSync(file, 'utf8')
      assert.equal(stored, `${/next_cursor: (\S+)/.exec(first.stderr)?.[1] ?? ''}\n`)
      const fresh = await record([2, 3, 1])
      const second = await runCaptured(['changes', '--start', 'latest', '--cursor-file', file, '--out', out], { env: env() })
      assert.equal(second.code, 0, second.stderr)
      assert.deepEqual(readFileSync(out, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as unknown), visible(fresh))
      assert.notEqual(readFileSync(file, 'utf8'), stored)
      const afterSecond = readFileSync(file, 'utf8')
      // A refused run (the stored cursor was taken without a type filter) writes no events and keeps the stored cursor.
      await record([1])
      const refused = await runCaptured(['changes', '--cursor-file', file, '--type', 'posts.updated', '--out', join(dir, 'refused.ndjson')], { env: env() })
      assert.equal(refused.code, 1)
      assert.match(refused.stderr, /^error: VALIDATION_ERROR \(422\): query.cursor: Invalid cursor/)
      assert.equal(readFileSync(file, 'utf8'), afterSecond)
      assert.equal(existsSync(join(dir, 'refused.ndjson')), false)
      // --cursor with --cursor-file or --start: said twice, refused before any request.
      for (const extra of [['--cursor-file', file], ['--start', 'latest']]) {
        const both = await runCaptured(['changes', '--cursor', 'abc', ...extra], { env: env() })
        assert.equal(both.code, 2)
        assert.match(both.stderr, /^error: option '--cursor <cursor>' cannot be used with option/)
      }
    })

    it('export changes exits 3 with what to do when the cursor expired', async () => {
      const file = join(dir, 'old.cursor')
      const head = await client().changes({ start: 'latest' })
      writeFileSync(file, head.next_cursor + '\n')
      const later = await server.startSibling({}, { now: () => Date.now() + 91 * DAY })
      const result = await runCaptured(['changes', '--cursor-file', file], { env: { ...env(), PA_BASE_URL: later.baseUrl } })
      await later.close()
      assert.equal(result.code, 3)
      assert.match(result.stderr, /^error: CURSOR_EXPIRED \(410\): .*\[request_id [^\]]+\]; export your data again, then follow the feed from --start latest \(with --cursor-file, delete that file first\)\n$/)
      assert.equal(readFileSync(file, 'utf8'), head.next_cursor + '\n')
    })
  })
}
