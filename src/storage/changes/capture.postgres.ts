import type pg from 'pg'
import { upsertClause, type ImportTable } from '../repositories/import-writer.tables.js'
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
    // Days: counted (writes, updates) and kept as runs of consecutive days per account. A batch
    // holds each day once, so an account whose days span exactly their number is one run (the
    // usual case, found by a hash aggregate); the others are split into runs by gaps and islands.
    // The split branch is skipped whole (a one-time filter) when every account's days are contiguous.
    return `with written as (${upsert} returning ${key}, xmax <> 0 as updated),
      counted as (update changed_counts set daily_writes = changed_counts.daily_writes + c.writes, daily_updates = changed_counts.daily_updates + c.updates
        from (select count(*) as writes, count(*) filter (where updated) as updates from written) c),
      accounts as (select platform, account_id, min(date) as since, max(date) as until, count(*) <> max(date) - min(date) + 1 as gaps
        from written group by platform, account_id)
      insert into ${capture.into} (platform, account_id, since, until)
      select platform, account_id, since, until from accounts where not gaps
      union all
      select platform, account_id, min(date), max(date) from (
        select w.platform, w.account_id, w.date, w.date - (row_number() over (partition by w.platform, w.account_id order by w.date))::int as island
        from written w
        where exists (select 1 from accounts where gaps) and (w.platform, w.account_id) in (select platform, account_id from accounts where gaps)) split
      group by platform, account_id, island`
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
