import { REBUILD_COVERAGE_SQL } from '../changes/coverage-rebuild.js'
import type { Store } from '../db.js'
import type { BrandDayRenderer } from './group-rows.js'
import { refreshPostgresReadModel, refreshSqliteReadModel } from './refresh.js'

/**
 * Sums the whole read model again from the raw rows, and reads every account's coverage again.
 * The import keeps both current by itself; this is for rows written by other means (test fixtures that insert raw rows, a repair by an operator).
 */
export async function rebuildReadModel (store: Store, render: BrandDayRenderer): Promise<void> {
  if (store.dialect === 'sqlite') {
    const { sqlite } = store
    sqlite.transaction(() => {
      sqlite.exec('delete from account_monthly; delete from brand_daily; delete from brand_daily_running; delete from brand_monthly')
      refreshSqliteReadModel(sqlite, { accountMonths: "select distinct platform, account_id, substr(date, 1, 7) || '-01' as month from daily_metrics" }, render)
      for (const statement of REBUILD_COVERAGE_SQL) sqlite.exec(statement)
    })()
    return
  }
  const client = await store.pool.connect()
  try {
    await client.query('begin')
    await client.query('delete from account_monthly; delete from brand_daily; delete from brand_daily_running; delete from brand_monthly')
    await refreshPostgresReadModel(client, { accountMonths: "select distinct platform, account_id, date_trunc('month', date)::date as month from daily_metrics" }, render)
    for (const statement of REBUILD_COVERAGE_SQL) await client.query(statement)
    await client.query('commit')
  } catch (error) {
    await client.query('rollback').catch(() => {})
    throw error
  } finally {
    client.release()
  }
}
