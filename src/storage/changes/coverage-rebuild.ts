/**
 * `account_coverage` read again from the raw rows (docs/storage.md "Syncs and the change feed"),
 * for rows written by other means than the import (test fixtures, a repair by hand), as the read
 * model's rebuild does for its tables: every account's first and last day with a row; an account
 * with no row left loses its coverage. `synced_at` and `sync_id` are kept: a rebuild is no sync.
 */
export const REBUILD_COVERAGE_SQL = [
  `delete from account_coverage where not exists (select 1 from daily_metrics d
    where d.platform = account_coverage.platform and d.account_id = account_coverage.account_id)`,
  // `where true` lets SQLite parse the upsert after a SELECT (its documented ambiguity with ON).
  `insert into account_coverage (platform, account_id, first_date, last_date)
    select platform, account_id, min(date), max(date) from daily_metrics where true group by platform, account_id
    on conflict (platform, account_id) do update set first_date = excluded.first_date, last_date = excluded.last_date`,
]
