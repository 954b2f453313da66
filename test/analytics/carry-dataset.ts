import { generateDataset, type AnalyticsDataset } from '../helpers/analytics-fixtures.js'

/**
 * The seeded random data of the gap-rule tests (/analytics/?gaps=carry, POST /reports with
 * gaps carry): brands 1–3 over 75 days from 2026-01-20, with missing days, missing metrics and
 * accounts whose coverages start late and stop early: 20 % of account-days missing, 15 % of
 * metrics null (generateDataset), and coverages cut.
 */
export function datasetWithCoverages (): AnalyticsDataset {
  const dataset = generateDataset({ seed: 20261128, start: '2026-01-20', days: 75 })
  const cut: Record<string, { from?: string, to?: string }> = {
    'tk:102': { from: '2026-02-10' },
    'yt:103': { to: '2026-03-05' },
    'li:201': { from: '2026-02-20', to: '2026-03-20' },
    'th:206': { to: '2026-02-14' },
  }
  return {
    ...dataset,
    daily: dataset.daily.filter((row) => {
      const rule = cut[`${row.platform}:${Number(row.account_id)}`]
      return rule === undefined || ((rule.from === undefined || row.date >= rule.from) && (rule.to === undefined || row.date <= rule.to))
    }),
  }
}
