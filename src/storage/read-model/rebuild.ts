import type { Store } from '../db.js'
import type { BrandDayRenderer } from './group-rows.js'
import { refreshPostgresReadModel, refreshSqliteReadModel } from './refresh.js'
import { TouchedKeys } from './touched.js'

/**
 * Sums the whole read model again from the raw rows. The import keeps it current by itself; this is
 * for rows written by other means (test fixtures that insert raw rows, a repair by an operator).
 */
export async function rebuildReadModel (store: Store, render: BrandDayRenderer): Promise<void> {
  if (store.dialect === 'sqlite') {
    const { sqlite } = store
    sqlite.transaction(() => {
      sqlite.exec('delete from account_monthly; delete from brand_daily; delete from brand_monthly')
      refreshSqliteReadModel(sqlite, everything(sqlite.prepare("select distinct platform, account_id, substr(date, 1, 7) || '-01' from daily_metrics").raw().all() as Array<[string, number, string]>), render)
    })()
    return
  }
  const client = await store.pool.connect()
  try {
    await client.query('begin')
    await client.query('delete from account_monthly; delete from brand_daily; delete from brand_monthly')
    const { rows } = await client.query<{ platform: string, account_id: string, month: string }>(
      "select distinct platform, account_id, to_char(date, 'YYYY-MM-01') as month from daily_metrics")
    await refreshPostgresReadModel(client, everything(rows.map((row) => [row.platform, Number(row.account_id), row.month])), render)
    await client.query('commit')
  } catch (error) {
    await client.query('rollback').catch(() => {})
    throw error
  } finally {
    client.release()
  }
}

function everything (accountMonths: Array<[string, number, string]>): TouchedKeys {
  const touched = new TouchedKeys()
  for (const [platform, accountId, month] of accountMonths) touched.day(platform as never, accountId, month)
  return touched
}
