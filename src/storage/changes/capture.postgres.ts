import type pg from 'pg'
import { DAILY_TABLE, upsertClause, type ImportTable } from '../repositories/import-writer.tables.js'
import { changedTablesOf, type ChangedTable } from './changed-tables.js'

/**
 * What an import changed, recorded by PostgreSQL in the statement that writes it (docs/import.md
 * "Syncs"): each staged batch is moved by one INSERT … ON CONFLICT DO UPDATE … WHERE <a data
 * column is distinct> RETURNING the keys it inserted or changed, in a data-modifying WITH whose
 * outer INSERT puts those keys into the temporary tables of changed-tables.ts. For accounts and
 * brands, whether a key existed before and its values then come from a sub-select of the same
 * statement (every part of a WITH reads the same snapshot, taken before the upsert's own writes);
 * for daily rows and posts, whether it was inserted comes from the written row itself. The first
 * write of a key wins (ON CONFLICT DO NOTHING on the changed tables); daily rows are kept as runs
 * of days and counted (changed-tables.ts).
 */

interface Capture {
  /** The temporary table of changed keys. */
  into: ChangedTable
  /** The target's columns kept from before the write (accounts, brands); none: "inserted" from xmax. */
  previous: readonly string[] | undefined
  /** Appended as runs of consecutive days per account (changed-tables.ts) rather than one row per key. */
  runs?: boolean
}

const CAPTURES: Record<string, Capture> = {
  daily_metrics: { into: 'changed_day_runs', previous: undefined, runs: true },
  posts: { into: 'changed_posts', previous: undefined },
  accounts: { into: 'changed_accounts', previous: ['brand_id', 'account_name', 'network_id', 'storage_avatar', 'permalink'] },
  brands: { into: 'changed_brands', previous: ['brand_name'] },
}

/**
 * Days: counted (writes, updates) and kept as runs of consecutive days per account (the CTEs, then
 * the insert into changed_day_runs), from a CTE
 * `written (platform, account_id, date, updated)` of the rows a statement wrote. A batch holds
 * each day once, so an account whose days span exactly their number is one run (the usual case,
 * found by a hash aggregate); the others are split into runs by gaps and islands. The split branch
 * is skipped whole (a one-time filter) when every account's days are contiguous.
 */
const DAY_RUNS_CTES = `counted as (update changed_counts set daily_writes = changed_counts.daily_writes + c.writes, daily_updates = changed_counts.daily_updates + c.updates
    from (select count(*) as writes, count(*) filter (where updated) as updates from written) c),
  accounts as (select platform, account_id, min(date) as since, max(date) as until, count(*) <> max(date) - min(date) + 1 as gaps
    from written group by platform, account_id)`
const DAY_RUNS_INSERT = `insert into changed_day_runs (platform, account_id, since, until)
  select platform, account_id, since, until from accounts where not gaps
  union all
  select platform, account_id, min(date), max(date) from (
    select w.platform, w.account_id, w.date, w.date - (row_number() over (partition by w.platform, w.account_id order by w.date))::int as island
    from written w
    where exists (select 1 from accounts where gaps) and (w.platform, w.account_id) in (select platform, account_id from accounts where gaps)) split
  group by platform, account_id, island`

/** Creates the changed-key tables; call inside the import's transaction (they are dropped at its end). */
export async function startPostgresCapture (client: pg.PoolClient): Promise<void> {
  for (const [name, columns] of changedTablesOf('postgres')) await client.query(`create temp table ${name} (${columns}) on commit drop`)
  await client.query('insert into changed_counts values (0, 0)')
}

/** The statement moving `stage` into `spec.table` and recording the keys it inserted or changed. */
export function capturingUpsert (spec: ImportTable, stage: string, columns: readonly string[]): string {
  const capture = CAPTURES[spec.table]
  if (capture === undefined) throw new Error(`no change capture for ${spec.table}`)
  const list = columns.join(', ')
  const key = spec.key.join(', ')
  const upsert = `insert into ${spec.table} (${list}) select ${list} from ${stage} ${upsertClause(spec, 'postgres')}`
  if (capture.previous === undefined) {
    // Daily rows and posts, by the hundred thousand: one pass, no second look-up per row. A row
    // version the upsert inserted has xmax 0; one it updated carries the updating transaction's id
    // (it holds the row's lock) — the established way to tell the two apart in RETURNING, checked
    // by the inserted/changed and added/changed tests on every run.
    if (capture.runs !== true) {
      return `with written as (${upsert} returning ${key}, (xmax = 0)::int as inserted)
        insert into ${capture.into} select ${key}, inserted from written on conflict do nothing`
    }
    return `with written as (${upsert} returning ${key}, xmax <> 0 as updated), ${DAY_RUNS_CTES} ${DAY_RUNS_INSERT}`
  }
  // Accounts and brands: their values before the write, read in the same snapshot.
  const keyMatch = (left: string, right: string): string => spec.key.map((column) => `${left}.${column} = ${right}.${column}`).join(' and ')
  const prior = [...spec.key, ...capture.previous].map((column) => `t.${column}`).join(', ')
  return `with prior as (select ${prior} from ${stage} s join ${spec.table} t on ${keyMatch('t', 's')}),
    written as (${upsert} returning ${key})
    insert into ${capture.into}
    select ${spec.key.map((column) => `w.${column}`).join(', ')}, (p.${spec.key[0] ?? ''} is null)::int${capture.previous.map((column) => `, p.${column}`).join('')}
    from written w left join prior p on ${keyMatch('p', 'w')}
    on conflict do nothing`
}

/**
 * Advisory locks (two-key form: a class, then the schema's hash) of the daily rows' plain insert
 * below. Every import holds IMPORT_LOCK_CLASS shared for its whole transaction; a batch takes the
 * plain insert only while no other import holds it, and holds NEW_DAYS_LOCK_CLASS (session level)
 * for that one statement, which an import that opens waits for before it writes anything.
 */
export const IMPORT_LOCK_CLASS = 310031
export const NEW_DAYS_LOCK_CLASS = 310032
/** The second key: this schema's, so imports into other schemas of the database do not count. */
export const SCHEMA_LOCK_KEY = '(hashtext(current_schema()) & 2147483647)'

/**
 * The daily batch's statement with the plain insert for new days. ON CONFLICT is not free: each
 * row is inserted speculatively (its key looked up, the row and its index entry written, the
 * insertion then confirmed), which costs as much server time again as inserting it (measured: 4.5
 * against 2.7 CPU s for S's 365,000 rows, 335 against 286 WAL bytes per row). When no account of
 * the batch has a stored row between its first and last day in the batch (one index probe per
 * account: the scalar sub-select keeps the planner on the key, where a join would scan the table),
 * no row of the batch can conflict, and the batch is inserted plainly; otherwise it goes through
 * the upsert as before. Either way the same rows are written and the same keys captured (a plain
 * insert inserts every row of the batch: `updated` false).
 *
 * What a plain insert cannot do is wait for another transaction's row with the same key and then
 * update it: it fails. Only another import writes daily rows, so the plain insert is taken only
 * while no other import of this schema is open (pg_locks), and an import that opens during the
 * statement waits for it to end (NEW_DAYS_LOCK_CLASS, writer side), then sees this one open and
 * keeps to the upsert. The statement returns how many rows it inserted plainly.
 */
export function capturingDailyWrite (stage: string, columns: readonly string[]): string {
  const list = columns.join(', ')
  return `with plainly as (select (not exists (select 1 from pg_locks l
        where l.locktype = 'advisory' and l.database = (select oid from pg_database where datname = current_database())
          and l.classid = ${IMPORT_LOCK_CLASS} and l.objid = ${SCHEMA_LOCK_KEY}::oid and l.objsubid = 2 and l.pid <> pg_backend_pid()))
      and not exists (select 1 from (select platform, account_id, min(date) as since, max(date) as until from ${stage} group by platform, account_id) r
        where (select d.date from daily_metrics d where d.platform = r.platform and d.account_id = r.account_id and d.date between r.since and r.until limit 1) is not null)
      as yes),
    plain as (insert into daily_metrics (${list}) select ${list} from ${stage} where (select yes from plainly)),
    upserted as (insert into daily_metrics (${list}) select ${list} from ${stage} where not (select yes from plainly)
      ${upsertClause(DAILY_TABLE, 'postgres')} returning platform, account_id, date, xmax <> 0 as updated),
    written as (select platform, account_id, date, false as updated from ${stage} where (select yes from plainly)
      union all select platform, account_id, date, updated from upserted),
    ${DAY_RUNS_CTES},
    runs as (${DAY_RUNS_INSERT})
    select case when (select yes from plainly) then (select count(*) from ${stage}) else 0 end::int as plain`
}
