import { sql, type Kysely } from 'kysely'
import { MAX_POST_IDS_PER_ACCOUNT, type NewChangeEvent } from '../../domain/changes.js'
import { formatUtcSeconds } from '../../domain/dates.js'
import { noChanges, type RecordCounts, type Sync } from '../../domain/syncs.js'
import type { Database } from '../database.js'
import type { Dialect } from '../db.js'
import { platformRankOfRow } from '../queries/sql-helpers.js'
import { insertEvents, takeChangeNumbers } from './change-log.repository.js'
import { updateCoverage } from './coverage.js'
import { findSync } from '../repositories/syncs.repository.js'
import { AnalyticsEvents, PostsEvents, accountEventsOf, brandEvents, type AccountEventRow, type BrandChangeRow, type PostCountRow, type RangeRow } from './sync-events.js'

/**
 * Records a committed import as a sync (docs/import.md "Syncs"), inside its transaction, from the
 * changed-key tables its writes filled (changed-tables.ts), in two steps:
 * - `prepareSync`: merges the changed days into ranges (sync_ranges, which the read-model refresh
 *   then reads) and works out the counts and the events;
 * - `write`: takes the sync id and event numbers (takeChangeNumbers: in PostgreSQL the change clock
 *   stays locked until commit, so this is the import's last step) and writes the events, the
 *   `syncs` row and the coverage of the accounts whose daily rows changed.
 * Whatever grows with the rows or the accounts — the changed days and their ranges, the account
 * events, the posts per account, the sync's account list — stays in the store: the events are read
 * back a page at a time in their order as they are written, and the sync's brand and account lists
 * are built by the store itself. Only the brand events (one per brand at most) are held in memory.
 */

export interface SyncInput {
  /** The import's start (ISO-8601 UTC, whole seconds). */
  startedAt: string
  sourceFiles: readonly string[]
  read: RecordCounts
}

export interface PreparedSync {
  /** Writes the events, the sync and the coverage; returns the sync. Call last before COMMIT. */
  write: () => Promise<Sync>
}

/** Rows of a numbered table (ranges, account events) read per round trip while the events are written. */
const RANGE_PAGE = 5000
/** Accounts of sync_post_accounts read per round trip, with up to 2 × MAX_POST_IDS_PER_ACCOUNT ids each. */
const POST_ACCOUNT_PAGE = 500
/** Events written per insertEvents call (it splits further by its own statement size). */
const EVENT_BATCH = 500

/** Runs that overlap or touch (the next starts at most one day after the furthest end so far) form one range. */
const STARTS_RANGE: Record<Dialect, string> = {
  sqlite: 'reach is null or julianday(since) > julianday(reach) + 1',
  postgres: 'reach is null or since > reach + 1',
}
const DAYS_IN: Record<Dialect, string> = {
  sqlite: 'cast(julianday(max(until)) - julianday(min(since)) + 1 as integer)',
  postgres: 'max(until) - min(since) + 1',
}

export async function prepareSync (db: Kysely<Database>, dialect: Dialect, input: SyncInput): Promise<PreparedSync> {
  const changed = noChanges()
  await sql`insert into sync_ranges (seq, brand_id, platform, account_id, since, until, days)
    select row_number() over (order by a.brand_id, ${platformRankOfRow(sql.ref('r.platform'))}, r.account_id, r.since),
      a.brand_id, r.platform, r.account_id, r.since, r.until, r.days
    from (select platform, account_id, min(since) as since, max(until) as until, ${sql.raw(DAYS_IN[dialect])} as days
      from (select platform, account_id, since, until,
          sum(case when ${sql.raw(STARTS_RANGE[dialect])} then 1 else 0 end) over (partition by platform, account_id order by since, until rows unbounded preceding) as range_number
        from (select platform, account_id, since, until,
            max(until) over (partition by platform, account_id order by since, until rows between unbounded preceding and 1 preceding) as reach
          from changed_day_runs) runs) numbered
      group by platform, account_id, range_number) r
    join accounts a on a.platform = r.platform and a.account_id = r.account_id`.execute(db)
  const totals = (await sql<{ brands: number, days: number | null, inserted: number }>`select count(distinct brand_id) as brands, sum(days) as days,
      (select daily_writes - daily_updates from changed_counts) as inserted
    from sync_ranges`.execute(db)).rows[0]
  const analyticsBrands = Number(totals?.brands ?? 0)
  // A day is inserted at most once, by its first write: the inserts are the days inserted.
  changed.daily.inserted = Number(totals?.inserted ?? 0)
  changed.daily.changed = Number(totals?.days ?? 0) - changed.daily.inserted

  for (const row of (await sql<{ added: number, n: number }>`select added, count(*) as n from changed_posts group by added`.execute(db)).rows) {
    changed.post[Number(row.added) === 1 ? 'added' : 'changed'] = Number(row.n)
  }
  const brandChanges = brandEvents(await readBrandChanges(db))
  for (const event of brandChanges) changed.brand[event.data.change] += 1

  await numberAccountEvents(db)
  for (const row of (await sql<{ change: AccountEventRow['change'], n: number }>`select change, count(*) as n from sync_account_events group by change`.execute(db)).rows) {
    if (row.change === 'created') changed.account.created = Number(row.n)
    else if (row.change === 'updated') changed.account.updated = Number(row.n)
    else if (row.change === 'moved_in') changed.account.moved = Number(row.n)
  }
  await numberPostAccounts(db, dialect)
  const counted = (await sql<{ accountEvents: number, postBrands: number }>`select
      (select count(*) from sync_account_events) as "accountEvents",
      (select count(distinct brand_id) from sync_post_accounts) as "postBrands"`.execute(db)).rows[0]
  const eventCount = brandChanges.length + Number(counted?.accountEvents ?? 0) + analyticsBrands + Number(counted?.postBrands ?? 0)

  return {
    write: async () => {
      const committedAt = formatUtcSeconds()
      // From here on the change clock is ours (in PostgreSQL, locked until our commit).
      const numbers = await takeChangeNumbers(db, { sync: true, eventCount })
      const syncId = numbers.syncId ?? 0
      const events = new EventWriter(db, { firstEventId: numbers.firstEventId, syncId, createdAt: committedAt })
      await events.add(brandChanges)
      await writeAccountEvents(db, events)
      await writeAnalyticsEvents(db, events)
      await writePostsEvents(db, events)
      await events.flush()

      await db.insertInto('syncs').values({
        sync_id: syncId,
        started_at: input.startedAt,
        committed_at: committedAt,
        source_files: JSON.stringify([...input.sourceFiles]),
        counts: JSON.stringify({ read: { ...input.read }, changed }),
        brand_ids: '[]',
        accounts: '[]',
        first_event_id: eventCount === 0 ? null : numbers.firstEventId,
        event_count: eventCount,
      }).execute()
      await writeSyncLists(db, syncId)
      await updateCoverage(db, dialect, { syncId, committedAt })
      const sync = await findSync(db, syncId)
      if (sync === undefined) throw new Error(`sync ${syncId} was not written`)
      return sync
    },
  }
}

/** Platform rank of a column, for ordering in SQL. */
const rankOf = (column: string) => platformRankOfRow(sql.ref(column))

/**
 * `account.updated` into sync_account_events, numbered in the feed's order: an account created →
 * `created` in its brand; otherwise, in another brand than before → `moved_out` for the brand it
 * left and `moved_in` for the one it joined; its name, network id, avatar or permalink different
 * from before → `updated` (in its brand now). Ordered by brand, platform, account, then
 * created, moved_in, updated, moved_out.
 */
async function numberAccountEvents (db: Kysely<Database>): Promise<void> {
  const moved = sql`c.created = 0 and c.old_brand_id is not null and c.old_brand_id <> a.brand_id`
  const updated = sql`c.created = 0 and (c.old_account_name is distinct from a.account_name or c.old_network_id is distinct from a.network_id
    or c.old_storage_avatar is distinct from a.storage_avatar or c.old_permalink is distinct from a.permalink)`
  const from = sql`from changed_accounts c join accounts a on a.platform = c.platform and a.account_id = c.account_id`
  await sql`insert into sync_account_events (seq, brand_id, platform, account_id, account_name, change)
    select row_number() over (order by e.brand_id, ${rankOf('e.platform')}, e.account_id, e.change_order), e.brand_id, e.platform, e.account_id, e.account_name, e.change
    from (select a.brand_id, c.platform, c.account_id, a.account_name, 'created' as change, 0 as change_order ${from} where c.created = 1
      union all select a.brand_id, c.platform, c.account_id, a.account_name, 'moved_in', 1 ${from} where ${moved}
      union all select a.brand_id, c.platform, c.account_id, a.account_name, 'updated', 2 ${from} where ${updated}
      union all select c.old_brand_id, c.platform, c.account_id, a.account_name, 'moved_out', 3 ${from} where ${moved}) e`.execute(db)
}

/** Post ids ranked by their bytes in both stores (PostgreSQL's database collation may differ from SQLite's binary order). */
const BYTE_ORDER: Record<Dialect, string> = { sqlite: 'c.id', postgres: 'c.id collate "C"' }

/**
 * Posts added and changed per account, with the account's brand now, numbered in brand, platform,
 * account order; and the first MAX_POST_IDS_PER_ACCOUNT ids of each account's added and changed posts.
 */
async function numberPostAccounts (db: Kysely<Database>, dialect: Dialect): Promise<void> {
  await sql`insert into sync_post_accounts (seq, brand_id, platform, account_id, added, changed)
    select row_number() over (order by a.brand_id, ${rankOf('p.platform')}, p.account_id), a.brand_id, p.platform, p.account_id, sum(c.added), count(*) - sum(c.added)
    from changed_posts c
    join posts p on p.platform = c.platform and p.id = c.id
    join accounts a on a.platform = p.platform and a.account_id = p.account_id
    group by a.brand_id, p.platform, p.account_id`.execute(db)
  await sql`insert into sync_post_ids (seq, added, rank, id)
    select s.seq, r.added, r.rank, r.id
    from (select p.platform, p.account_id, c.added, c.id,
        row_number() over (partition by p.platform, p.account_id, c.added order by ${sql.raw(BYTE_ORDER[dialect])}) as rank
      from changed_posts c join posts p on p.platform = c.platform and p.id = c.id) r
    join sync_post_accounts s on s.platform = r.platform and s.account_id = r.account_id
    where r.rank <= ${MAX_POST_IDS_PER_ACCOUNT}`.execute(db)
}

/** Reads a numbered table (seq from 1) a page at a time, in order. */
async function * pagesOf<Row> (read: (after: number, through: number) => Promise<Row[]>, size = RANGE_PAGE): AsyncGenerator<Row[]> {
  for (let after = 0; ; after += size) {
    const page = await read(after, after + size)
    if (page.length === 0) return
    yield page
  }
}

async function writeAccountEvents (db: Kysely<Database>, events: EventWriter): Promise<void> {
  const pages = pagesOf(async (after, through) => (await sql<AccountEventRow>`select brand_id, platform, account_id, account_name, change
    from sync_account_events where seq > ${after} and seq <= ${through} order by seq`.execute(db)).rows)
  for await (const page of pages) {
    await events.add(accountEventsOf(page.map((row) => ({ ...row, brand_id: Number(row.brand_id), account_id: Number(row.account_id) }))))
  }
}

/** `analytics.updated`, one per brand, built from sync_ranges read a page at a time. */
async function writeAnalyticsEvents (db: Kysely<Database>, events: EventWriter): Promise<void> {
  const analytics = new AnalyticsEvents()
  const pages = pagesOf(async (after, through) => (await sql<RangeRow>`select brand_id, platform, account_id, since, until from sync_ranges
    where seq > ${after} and seq <= ${through} order by seq`.execute(db)).rows)
  for await (const page of pages) await events.add(analytics.add(page.map(rangeRow)))
  await events.add(analytics.finish())
}

/** `posts.updated`, one per brand, built from sync_post_accounts and sync_post_ids read a page of accounts at a time. */
async function writePostsEvents (db: Kysely<Database>, events: EventWriter): Promise<void> {
  const posts = new PostsEvents()
  const pages = pagesOf(async (after, through): Promise<PostCountRow[]> => {
    const accounts = (await sql<{ seq: number, brand_id: number, platform: PostCountRow['platform'], account_id: number, added: number, changed: number }>`select seq, brand_id, platform, account_id, added, changed
      from sync_post_accounts where seq > ${after} and seq <= ${through} order by seq`.execute(db)).rows
    const ids = (await sql<{ seq: number, added: number, id: string }>`select seq, added, id from sync_post_ids
      where seq > ${after} and seq <= ${through} order by seq, added, rank`.execute(db)).rows
    const idsOf = new Map<number, { addedIds: string[], changedIds: string[] }>()
    for (const row of ids) {
      const lists = idsOf.get(Number(row.seq)) ?? { addedIds: [], changedIds: [] }
      idsOf.set(Number(row.seq), lists)
      const list = Number(row.added) === 1 ? lists.addedIds : lists.changedIds
      list.push(row.id)
    }
    return accounts.map((row) => ({
      brand_id: Number(row.brand_id),
      platform: row.platform,
      account_id: Number(row.account_id),
      added: Number(row.added),
      changed: Number(row.changed),
      ...(idsOf.get(Number(row.seq)) ?? { addedIds: [], changedIds: [] }),
    }))
  }, POST_ACCOUNT_PAGE)
  for await (const page of pages) await events.add(posts.add(page))
  await events.add(posts.finish())
}

/**
 * The sync's brand and account lists, written by the store from the tables above (the process never
 * holds them): brands whose data it changed (its events' brands: created or renamed brands, the
 * account and posts events', the changed ranges'), ascending; accounts whose record, daily rows or posts it
 * changed, in canonical order (platform rank, account id), as `[["fb",11],…]`.
 */
async function writeSyncLists (db: Kysely<Database>, syncId: number): Promise<void> {
  const named = sql`select c.brand_id from changed_brands c join brands b on b.brand_id = c.brand_id
    where c.created = 1 or c.old_brand_name is distinct from b.brand_name`
  await sql`update syncs set
    brand_ids = (select '[' || coalesce(string_agg(cast(b.brand_id as text), ',' order by b.brand_id), '') || ']'
      from (select brand_id from sync_ranges union select brand_id from sync_account_events union select brand_id from sync_post_accounts union ${named}) b),
    accounts = (select '[' || coalesce(string_agg('["' || u.platform || '",' || cast(u.account_id as text) || ']', ',' order by ${rankOf('u.platform')}, u.account_id), '') || ']'
      from (select platform, account_id from sync_ranges union select platform, account_id from sync_account_events
        union select platform, account_id from sync_post_accounts) u)
    where sync_id = ${syncId}`.execute(db)
}

/** Writes events in order with consecutive numbers, a batch at a time. */
class EventWriter {
  private pending: NewChangeEvent[] = []
  private next: number

  constructor (private readonly db: Kysely<Database>, private readonly at: { firstEventId: number, syncId: number, createdAt: string }) {
    this.next = at.firstEventId
  }

  async add (events: readonly NewChangeEvent[]): Promise<void> {
    this.pending.push(...events)
    if (this.pending.length >= EVENT_BATCH) await this.flush()
  }

  async flush (): Promise<void> {
    if (this.pending.length === 0) return
    await insertEvents(this.db, { firstEventId: this.next, syncId: this.at.syncId, createdAt: this.at.createdAt }, this.pending)
    this.next += this.pending.length
    this.pending = []
  }
}

async function readBrandChanges (db: Kysely<Database>): Promise<BrandChangeRow[]> {
  const { rows } = await sql<BrandChangeRow>`select c.brand_id, b.brand_name, c.created, c.old_brand_name
    from changed_brands c join brands b on b.brand_id = c.brand_id`.execute(db)
  return rows.map((row) => ({ ...row, brand_id: Number(row.brand_id), created: Number(row.created) }))
}

function rangeRow (row: RangeRow): RangeRow {
  return { brand_id: Number(row.brand_id), platform: row.platform, account_id: Number(row.account_id), since: row.since, until: row.until }
}
