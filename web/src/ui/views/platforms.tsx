import type { AggReport } from '../../../../packages/client/src/types.js'
import { COMPARE_METRICS, type CompareMetric } from '../../model/filters.js'
import { describeChange, formatDecimal2, formatInteger, formatRatioAsPercent, NO_VALUE } from '../../model/format.js'
import { PLATFORMS, platformName } from '../../model/platforms.js'
import { COMPARABLE_SHARE, noChangeText, platformCoverage } from '../../model/coverage.js'
import { analyticsExportArgs, chosenScope, dataStatusQuery, platformsViewQuery } from '../../model/queries.js'
import { csvRowsOf } from '../agg-csv.js'
import { DownloadCsv } from '../download-csv.js'
import { metricHeading, metricKind, metricLabel } from '../../model/catalog.js'
import { periodMark, type EntryStatus, type ValueMark } from '../../model/status.js'
import { useAgg, useDataStatus } from '../loads.js'
import { useSession } from '../session-context.js'
import { MetricCell } from '../metric-cell.js'
import { Empty, Loading, ProblemNotice } from '../notices.js'
import type { ViewProps } from '../view-props.js'

/**
 * Platforms side by side: bars of one metric for this period and the previous one, from two agg
 * calls split by platform with gaps=carry (as the charts: a missing account is never a drop) and
 * include=status, and every figure of this period below. A figure not every account reported is
 * marked in words (a carried stock, a flow short of account-days), and a flow of a carried-only
 * entry (no account-day reported: the API's 0) is "no data", never a bar at 0.
 * A platform's change follows the Summary's 90 % rule per platform (model/coverage.ts, from
 * GET /data-status of both periods, the Summary's own queries): the platform's accounts with data
 * now, each expected on every day of the previous period; under 90 % the coverage, not a change.
 * The agg entries' own status cannot say it: it expects nothing of the days before an account's
 * first row, so a platform whose data had barely begun would read complete.
 * Plain HTML bars: nine categories read better as labelled rows than as a chart axis, and each
 * bar's exact number is text next to it.
 */

type PlatformEntry = Record<string, unknown> & { platform: string }

/** The columns of the every-figure table, in order. */
const FIGURES = ['views', 'interactions', 'engagement_rate', 'reach', 'followers', 'new_followers', 'posts_count', 'revenue'] as const
const FORMATS: Record<(typeof FIGURES)[number], (value: unknown) => string> = {
  views: formatInteger,
  interactions: formatInteger,
  engagement_rate: formatRatioAsPercent,
  reach: formatInteger,
  followers: formatInteger,
  new_followers: formatInteger,
  posts_count: formatInteger,
  revenue: formatDecimal2,
}

interface PlatformFigures {
  entry: PlatformEntry
  status: EntryStatus | undefined
}

const byPlatform = (response: AggReport & { statuses: Array<EntryStatus | undefined> }): Map<string, PlatformFigures> =>
  new Map((response.data as PlatformEntry[]).map((entry, index) => [entry.platform, { entry, status: response.statuses[index] }]))

/** A bar's words after its number: the mark, as the tables say it. */
function BarMark ({ mark }: { mark: ValueMark | undefined }) {
  if (mark === undefined) return null
  return <span class='warning bar-mark' data-mark={mark.kind}>{mark.kind === 'no-data' ? `(no data; ${mark.text})` : `(⚠ ${mark.text})`}</span>
}

export function PlatformsView ({ filters, period, previous, navigate, revision }: ViewProps) {
  const { session } = useSession()
  const label = (name: string) => metricLabel(session.metrics, name)
  const query = platformsViewQuery(filters, period)
  const current = useAgg(query, revision)
  const before = useAgg(platformsViewQuery(filters, previous), revision)
  const scope = chosenScope(filters)
  const accountsNow = useDataStatus(dataStatusQuery(scope, period), revision)
  const accountsBefore = useDataStatus(dataStatusQuery(scope, previous), revision)
  const metric = filters.metric
  const format = metric === 'engagement_rate' ? formatRatioAsPercent : formatInteger
  // A figure's mark, when it has a number to mark (a null or absent one is a dash that says why already).
  const markOf = (figures: PlatformFigures | undefined, field: string) =>
    typeof figures?.entry[field] === 'number' ? periodMark(figures.status, field, metricKind(session.metrics, field)) : undefined

  return (
    <section class='panel' aria-labelledby='platforms-title'>
      <div class='panel-head'>
        <h2 id='platforms-title'>Platforms compared</h2>
        {current.status === 'done' && <DownloadCsv rows={csvRowsOf(current.value)} filename={`analytics-agg-by-platform-${period.since}-${period.until}.csv`} exportArgs={analyticsExportArgs(query)} />}
      </div>
      <div class='pickers'>
        <label for='compare-metric'>Metric</label>
        <select id='compare-metric' value={metric} onChange={(event) => navigate({ ...filters, metric: event.currentTarget.value as CompareMetric })}>
          {COMPARE_METRICS.map((value) => <option key={value} value={value}>{label(value)}</option>)}
        </select>
      </div>
      {current.status === 'loading' && <Loading label='Loading the per-platform totals' />}
      {current.status === 'error' && <ProblemNotice problem={current.problem} />}
      {current.status === 'done' && current.value.data.length === 0 && <Empty period={period} what='figures' />}
      {current.status === 'done' && current.value.data.length > 0 && (() => {
        const now = byPlatform(current.value)
        const then = before.status === 'done' ? byPlatform(before.value) : new Map<string, PlatformFigures>()
        const codes = PLATFORMS.filter((code) => now.has(code) || then.has(code))
        // A figure no account-day reported has no value to draw (its 0 is not a zero).
        const valueOf = (figures: PlatformFigures | undefined) => {
          const value = figures?.entry[metric]
          return typeof value === 'number' && markOf(figures, metric)?.kind !== 'no-data' ? value : undefined
        }
        const marked = codes.some((code) => FIGURES.some((field) => markOf(now.get(code), field) !== undefined))
        // The Change column: the rule's coverage first (as Top accounts), then the change when both figures exist.
        const changeText = (code: string, value: number | undefined, old: number | undefined): { text: string, share?: number } => {
          if (accountsNow.status === 'loading' || accountsBefore.status === 'loading') return { text: 'Checking the previous period…' }
          if (accountsNow.status === 'error') return { text: `Previous period: ${accountsNow.problem.title}` }
          if (accountsBefore.status === 'error') return { text: `Previous period: ${accountsBefore.problem.title}` }
          const coverage = platformCoverage(accountsNow.value, accountsBefore.value, code, previous)
          if (coverage.share < COMPARABLE_SHARE) return { text: noChangeText(coverage), share: coverage.share }
          return { text: value !== undefined && old !== undefined ? describeChange(value, old, format).text : NO_VALUE }
        }
        const max = Math.max(0, ...codes.flatMap((code) => [valueOf(now.get(code)) ?? 0, valueOf(then.get(code)) ?? 0]))
        const width = (value: number | undefined) => `${max === 0 || value === undefined ? 0 : Math.max(0.5, (value / max) * 100)}%`
        return (
          <>
            <div class='table-scroll' tabIndex={0} role='region' aria-label={`${label(metric)} per platform`}>
              <table class='bars' data-bars={metric}>
                <caption>{label(metric)} per platform: {period.since} – {period.until} against {previous.since} – {previous.until}</caption>
                <thead>
                  <tr><th scope='col'>Platform</th><th scope='col'>This period</th><th scope='col'>Previous period</th><th scope='col'>Change</th></tr>
                </thead>
                <tbody>
                  {codes.map((code) => {
                    const value = valueOf(now.get(code))
                    const old = valueOf(then.get(code))
                    const mark = markOf(now.get(code), metric)
                    const oldMark = markOf(then.get(code), metric)
                    const change = changeText(code, value, old)
                    return (
                      <tr key={code} data-platform={code}>
                        <th scope='row'>{platformName(code)}</th>
                        <td class={mark === undefined ? undefined : 'incomplete-value'}>
                          <span class={`bar bar-current${mark?.kind === 'carried' ? ' bar-carried' : ''}`} style={{ width: width(value) }} />
                          <span class='bar-value' data-current>{value === undefined ? NO_VALUE : format(value)}</span>
                          <BarMark mark={mark} />
                        </td>
                        <td class={oldMark === undefined || before.status === 'loading' ? undefined : 'incomplete-value'}>
                          <span class={`bar bar-previous${oldMark?.kind === 'carried' ? ' bar-carried' : ''}`} style={{ width: width(old) }} />
                          <span class='bar-value' data-previous>{before.status === 'loading' ? '…' : old === undefined ? NO_VALUE : format(old)}</span>
                          {before.status !== 'loading' && <BarMark mark={oldMark} />}
                        </td>
                        <td data-field='change' class='wrap-change' data-coverage={change.share?.toFixed(4)}>{change.text}</td>
                      </tr>
                    )
                  })}
                </tbody>
              </table>
            </div>
            {before.status === 'error' && <ProblemNotice problem={before.problem} />}
            {marked && (
              <p class='hint' data-marks-hint>
                ⚠ marks a figure not every account reported: followers carried from an account's last report, or a sum over fewer
                account-days than expected. "No data": no account-day of the platform reported it in the period (nothing is shown as 0).
              </p>
            )}
            <div class='table-scroll' tabIndex={0} role='region' aria-label='Every figure per platform'>
              <table class='data' data-agg-table='platforms'>
                <caption>Every figure per platform, {period.since} – {period.until}</caption>
                <thead>
                  <tr>
                    <th scope='col'>Platform</th>
                    {FIGURES.map((field) => <th key={field} scope='col'>{metricHeading(session.metrics, field)}</th>)}
                  </tr>
                </thead>
                <tbody>
                  {codes.filter((code) => now.has(code)).map((code) => {
                    const figures = now.get(code) as PlatformFigures
                    return (
                      <tr key={code} data-platform={code}>
                        <th scope='row'>{platformName(code)}</th>
                        {FIGURES.map((field) => <MetricCell key={field} row={figures.entry} field={field} format={FORMATS[field]} mark={markOf(figures, field)} />)}
                      </tr>
                    )
                  })}
                </tbody>
              </table>
            </div>
          </>
        )
      })()}
    </section>
  )
}
