import { sql, type Kysely } from 'kysely'
import type { NewChangeEvent } from '../../domain/changes.js'
import { formatUtcSeconds } from '../../domain/dates.js'
import { platformRank } from '../../domain/platforms.js'
import { noChanges, type ChangeCounts, type RecordCounts, type Sync, type SyncAccount } from '../../domain/syncs.js'
import type { Database } from '../database.js'
import type { Dialect } from '../db.js'
import { platformRankOfRow } from '../queries/sql-helpers.js'
import { insertEvents, takeChangeNumbers } from './change-log.repository.js'
import { updateCoverage } from './coverage.js'
import { AnalyticsEvents, accountEvents, brandEvents, postsEvents, type AccountChangeRow, type BrandChangeRow, type PostCountRow, type RangeRow } from './sync-events.js'

/**
 * Records a committed import as a sync (docs/import.md "Syncs"), inside its transaction, from the
 * changed-key tables its writes filled (changed-tables.ts), in two steps:
 * - `prepareSync`: merges the changed days into ranges (sync_ranges, which the read-model refresh
 *   then reads) and works out the counts and the events;
 * - `write`: takes the sync id and event numbers (takeChangeNumbers: in PostgreSQL the change clock
 *   stays locked until commit, so this is the import's last step) and writes the events, the
 *   `syncs` row and the coverage of the accounts whose daily rows changed.
 * Whatever grows with the rows — the changed days and their ranges — stays in the store and is read
 * back a page at a time; only per-account and per-brand lists are held in memory.
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

/** Range rows read per round trip while the events are written. */
const RANGE_PAGE = 5000
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
  const accountChanges = accountEvents(await readAccountChanges(db))
  countAccountChanges(accountChanges, changed)
  const postChanges = postsEvents(await readPostCounts(db))

  const dailyAccounts = (await sql<SyncAccount>`select distinct platform, account_id from sync_ranges`.execute(db)).rows
  const accounts = accountsOf([...dailyAccounts, ...accountChanges.map((event) => event.data), ...postChanges.flatMap((event) => event.data.accounts)])
  const brandIds = new Set([...brandChanges, ...accountChanges, ...postChanges].map((event) => event.data.brand_id))
  if (analyticsBrands > 0) {
    for (const row of (await sql<{ brand_id: number }>`select distinct brand_id from sync_ranges`.execute(db)).rows) brandIds.add(Number(row.brand_id))
  }
  const eventCount = brandChanges.length + accountChanges.length + analyticsBrands + postChanges.length

  return {
    write: async () => {
      const committedAt = formatUtcSeconds()
      // From here on the change clock is ours (in PostgreSQL, locked until our commit).
      const numbers = await takeChangeNumbers(db, { sync: true, eventCount })
      const syncId = numbers.syncId ?? 0
      const events = new EventWriter(db, { firstEventId: numbers.firstEventId, syncId, createdAt: committedAt })
      await events.add(brandChanges)
      await events.add(accountChanges)
      await writeAnalyticsEvents(db, events)
      await events.add(postChanges)
      await events.flush()

      const sync: Sync = {
        syncId,
        startedAt: input.startedAt,
        committedAt,
        sourceFiles: [...input.sourceFiles],
        counts: { read: { ...input.read }, changed },
        brandIds: [...brandIds].sort((a, b) => a - b),
        accounts,
        firstEventNumber: eventCount === 0 ? null : numbers.firstEventId,
        eventCount,
      }
      await db.insertInto('syncs').values({
        sync_id: syncId,
        started_at: sync.startedAt,
        committed_at: committedAt,
        source_files: JSON.stringify(sync.sourceFiles),
        counts: JSON.stringify(sync.counts),
        brand_ids: JSON.stringify(sync.brandIds),
        accounts: JSON.stringify(accounts.map((account) => [account.platform, account.account_id])),
        first_event_id: sync.firstEventNumber,
        event_count: eventCount,
      }).execute()
      await updateCoverage(db, dialect, { syncId, committedAt })
      return sync
    },
  }
}

/** `analytics.updated`, one per brand, built from sync_ranges read a page at a time. */
async function writeAnalyticsEvents (db: Kysely<Database>, events: EventWriter): Promise<void> {
  const analytics = new AnalyticsEvents()
  for (let after = 0; ; after += RANGE_PAGE) {
    const page = (await sql<RangeRow>`select brand_id, platform, account_id, since, until from sync_ranges
      where seq > ${after} and seq <= ${after + RANGE_PAGE} order by seq`.execute(db)).rows
    if (page.length === 0) break
    await events.add(analytics.add(page.map(rangeRow)))
  }
  await events.add(analytics.finish())
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

async function readAccountChanges (db: Kysely<Database>): Promise<AccountChangeRow[]> {
  const { rows } = await sql<AccountChangeRow>`select c.platform, c.account_id, a.brand_id, a.account_name, a.network_id, a.storage_avatar, a.permalink,
      c.created, c.old_brand_id, c.old_account_name, c.old_network_id, c.old_storage_avatar, c.old_permalink
    from changed_accounts c join accounts a on a.platform = c.platform and a.account_id = c.account_id`.execute(db)
  return rows.map((row) => ({
    ...row,
    account_id: Number(row.account_id),
    brand_id: Number(row.brand_id),
    created: Number(row.created),
    old_brand_id: row.old_brand_id === null ? null : Number(row.old_brand_id),
  }))
}

/** Posts added and changed per account, with the account's brand now, in brand, platform, account order. */
async function readPostCounts (db: Kysely<Database>): Promise<PostCountRow[]> {
  const { rows } = await sql<PostCountRow>`select a.brand_id, p.platform, p.account_id, sum(c.added) as added, count(*) - sum(c.added) as changed
    from changed_posts c
    join posts p on p.platform = c.platform and p.id = c.id
    join accounts a on a.platform = p.platform and a.account_id = p.account_id
    group by a.brand_id, p.platform, p.account_id`.execute(db)
  return rows.map((row) => ({ brand_id: Number(row.brand_id), platform: row.platform, account_id: Number(row.account_id), added: Number(row.added), changed: Number(row.changed) }))
    .sort((a, b) => a.brand_id - b.brand_id || platformRank(a.platform) - platformRank(b.platform) || a.account_id - b.account_id)
}

function rangeRow (row: RangeRow): RangeRow {
  return { brand_id: Number(row.brand_id), platform: row.platform, account_id: Number(row.account_id), since: row.since, until: row.until }
}

function countAccountChanges (events: ReturnType<typeof accountEvents>, changed: ChangeCounts): void {
  for (const event of events) {
    if (event.data.change === 'created') changed.account.created += 1
    else if (event.data.change === 'updated') changed.account.updated += 1
    else if (event.data.change === 'moved_in') changed.account.moved += 1
  }
}

/** Distinct accounts in canonical order. */
function accountsOf (rows: ReadonlyArray<{ platform: SyncAccount['platform'], account_id: number }>): SyncAccount[] {
  const seen = new Map<string, SyncAccount>()
  for (const row of rows) seen.set(`${row.platform}:${Number(row.account_id)}`, { platform: row.platform, account_id: Number(row.account_id) })
  return [...seen.values()].sort((a, b) => platformRank(a.platform) - platformRank(b.platform) || a.account_id - b.account_id)
}
