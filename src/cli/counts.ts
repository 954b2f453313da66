import { countOf } from '../domain/plural.js'

/** The four record kinds of an import, counted: "1 brand, 2 accounts, 365 daily rows, 0 posts". */
export function describeRecordCounts (counts: { brand: number, account: number, daily: number, post: number }): string {
  return [countOf(counts.brand, 'brand'), countOf(counts.account, 'account'), countOf(counts.daily, 'daily row'), countOf(counts.post, 'post')].join(', ')
}
