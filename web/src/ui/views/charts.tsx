import { useMemo, useState } from 'preact/hooks'
import type { AccountStatus } from '../../../../packages/client/src/types.js'
import { metricDescription, metricKind, metricLabel } from '../../model/catalog.js'
import { formatInteger, formatRatioAsPercent, NO_VALUE } from '../../model/format.js'
import type { Period } from '../../model/period.js'
import { analyticsExportArgs, dataStatusQuery, seriesQuery } from '../../model/queries.js'
import { buildSeries, CHART_METRICS, type ChartMetric, type Line, type SeriesModel } from '../../model/series.js'
import { platformName } from '../../model/platforms.js'
import { drawnApart, stateOf } from '../../model/points.js'
import { accountDays, carriedAccounts, carriedText, inGroup, missingAccounts, shortfall, windowOf } from '../../model/status.js'
import { DownloadCsv } from '../download-csv.js'
import { LineChart, type PointWarning } from '../line-chart.js'
import { useDataStatus, useSeries } from '../loads.js'
import { Empty, Loading, ProblemNotice } from '../notices.js'
import { useSession } from '../session-context.js'
import type { ViewProps } from '../view-props.js'

/**
 * Line charts over time: every daily page walked (or the monthly breakdown), one line per group,
 * with include=status. A point with fewer accounts reporting than expected (or a metric some of
 * them left out) is marked on the chart and in its data table, with the accounts that sent
 * nothing named from GET /data-status; a day no account of a line reported is a gap, and the
 * table says whose data is missing.
 */

export function Charts ({ filters, period, scope, brandNames, revision }: ViewProps) {
  const query = seriesQuery(filters, scope, period)
  const state = useSeries(query, revision)
  const status = useDataStatus(dataStatusQuery(scope, period), revision)
  const accounts = status.status === 'done' ? status.value : []
  const model = useMemo(() => state.status === 'done' ? buildSeries(state.value.entries, filters.granularity, period, brandNames, state.value.statuses) : undefined, [state, filters.granularity, period.since, period.until, brandNames])
  const unit = filters.granularity === 'daily' ? 'day' : 'month'
  return (
    <section class='panel' aria-labelledby='charts-title'>
      <div class='panel-head'>
        <h2 id='charts-title'>Over time, by {unit}</h2>
        {state.status === 'done' && <DownloadCsv rows={state.value.entries} filename={`analytics-${filters.granularity}-${period.since}-${period.until}.csv`} exportArgs={analyticsExportArgs(query)} />}
      </div>
      {state.status === 'loading' && <Loading label={filters.granularity === 'daily' ? 'Loading daily pages' : 'Loading the monthly breakdown'} progress={state.progress} />}
      {state.status === 'error' && <ProblemNotice problem={state.problem} />}
      {state.status === 'done' && state.value.entries.length === 0 && <Empty period={period} what={`${filters.granularity} entries`} />}
      {status.status === 'error' && <ProblemNotice problem={status.problem} />}
      {model !== undefined && model.lines.length > 0 && (
        <>
          <Incomplete model={model} unit={unit} period={period} accounts={accounts} />
          <div class='chart-grid'>
            {CHART_METRICS.map((metric) => <ChartCard key={metric} metric={metric} model={model} unit={unit} period={period} accounts={accounts} />)}
          </div>
        </>
      )}
    </section>
  )
}

/** Names of the line's accounts that sent nothing for point `x`, as text ('' when none or unknown). */
function missingText (accounts: readonly AccountStatus[], line: Line, x: string, period: Period): string {
  const names = missingAccounts(accounts, line.group, windowOf(x, period)).map((account) => account.account_name)
  return names.length === 0 ? '' : `missing: ${names.join(', ')}`
}

/** Each line's own accounts, found once (a long walk has thousands of points). */
function accountsByLine (model: SeriesModel, accounts: readonly AccountStatus[]): Map<string, AccountStatus[]> {
  return new Map(model.lines.map((line) => [line.key, accounts.filter((account) => inGroup(account, line.group))]))
}

/**
 * Why point `at` of a line is incomplete for a metric, with the accounts missing; undefined when
 * complete. A month also counts account-days (from /data-status): an account that missed 8 days
 * of it reported in the month, yet the month is not complete.
 */
function warningOf (line: Line, at: number, metric: string, unit: 'day' | 'month', x: string, period: Period, accounts: readonly AccountStatus[]): PointWarning | undefined {
  const status = line.status[at]
  const why = shortfall(status, metric, unit)
  const days = unit === 'month' ? accountDays(accounts, line.group, windowOf(x, period)) : undefined
  const daysShort = days !== undefined && days.reported < days.expected ? monthShortfall(days) : undefined
  if (why === undefined && daysShort === undefined) return undefined
  const missing = missingText(accounts, line, x, period)
  const carried = carriedAccounts(status, metric)
  const parts = [daysShort, why, carried > 0 ? carriedText(carried) : undefined, missing === '' ? undefined : missing].filter((part): part is string => part !== undefined)
  const accountsMissing = status !== undefined && status.reported < status.expected
  const [reported, expected] = status?.metrics[metric] ?? [0, 0]
  return {
    carryRules: status?.gaps !== undefined,
    text: parts.join('; '),
    accountsMissing: accountsMissing || daysShort !== undefined,
    apart: drawnApart(unit, { accountsMissing, accountDays: days === undefined || days.expected === 0 ? undefined : days.reported / days.expected, metric: expected === 0 ? undefined : reported / expected }),
  }
}

/** "112 of 120 account-days reported (Evergreen Outdoors · TikTok: 8 days)": a month's shortfall, from /data-status. */
function monthShortfall (days: ReturnType<typeof accountDays>): string {
  return `${days.reported} of ${days.expected} account-days reported (${days.short.map(({ account, days: count }) => `${account.account_name} · ${platformName(account.platform)}: ${count} ${count === 1 ? 'day' : 'days'}`).join(', ')})`
}

/** The points with incomplete data, listed once for every chart (their accounts reporting, and who is missing). */
function Incomplete ({ model, unit, period, accounts }: { model: SeriesModel, unit: 'day' | 'month', period: Period, accounts: readonly AccountStatus[] }) {
  const own = useMemo(() => accountsByLine(model, accounts), [model, accounts])
  const items = model.x.flatMap((x, at) => model.lines.flatMap((line) => {
    const status = line.status[at]
    const mine = own.get(line.key) ?? []
    const window = unit === 'month' ? accountDays(mine, line.group, windowOf(x, period)) : undefined
    const days = window !== undefined && window.reported < window.expected ? monthShortfall(window) : undefined
    const accountsShort = status !== undefined && status.reported < status.expected
    if (!accountsShort && days === undefined) return []
    const missing = missingText(mine, line, x, period)
    const text = days ?? `${status?.reported ?? 0} of ${status?.expected ?? 0} accounts reported${missing === '' ? '' : ` (${missing})`}`
    return [{ key: `${x}|${line.key}`, text: `${x} · ${line.label}: ${text}` }]
  })).reverse()
  if (items.length === 0) return <p class='hint' data-incomplete-count='0'>Every {unit} shown has data from every account expected.</p>
  const SHOWN = 30
  return (
    <div class='incomplete' data-incomplete-count={items.length}>
      <h3>⚠ {items.length} {items.length === 1 ? 'point has' : 'points have'} {unit === 'day' ? 'fewer accounts reporting than expected' : 'account-days missing'}</h3>
      <p class='hint'>
        On the charts these points are cut out of the lines and drawn hollow (a sum over fewer accounts is not a fall), with a triangle
        above the chart (a number: several points close together). A ring above the chart marks a {unit} on which some account left
        that metric out. The data tables say which accounts.
      </p>
      {/* A long list scrolls in its own focusable region (keyboard users can scroll it too). */}
      <div class='incomplete-list' tabIndex={0} role='region' aria-label='Points with accounts missing'>
        <ul>
          {items.slice(0, SHOWN).map((item) => <li key={item.key} data-incomplete-point>{item.text}</li>)}
          {items.length > SHOWN && <li>and {items.length - SHOWN} more (see the data tables)</li>}
        </ul>
      </div>
    </div>
  )
}

/** What the y axis says about its scale. */
function axisNote (kind: 'flow' | 'stock' | 'rate'): string {
  return kind === 'rate' ? 'from 0 (complete points)' : 'from 0'
}

function ChartCard ({ metric, model, unit, period, accounts }: { metric: ChartMetric, model: SeriesModel, unit: 'day' | 'month', period: Period, accounts: readonly AccountStatus[] }) {
  const { session } = useSession()
  const [open, setOpen] = useState(false)
  const label = metricLabel(session.metrics, metric)
  const own = useMemo(() => accountsByLine(model, accounts), [model, accounts])
  const kind = metricKind(session.metrics, metric)
  const lines = useMemo(() => model.lines.map((line) => {
    const warnings = model.x.map((x, at) => warningOf(line, at, metric, unit, x, period, own.get(line.key) ?? []))
    return {
      key: line.key,
      label: line.label,
      line,
      values: line.values[metric],
      warnings,
      states: model.x.map((_, at) => stateOf(kind, warnings[at], carriedAccounts(line.status[at], metric))),
    }
  }), [model, metric, own])
  const percent = kind === 'rate'
  const format = percent ? formatRatioAsPercent : formatInteger
  const marked = lines.reduce((count, line) => count + line.warnings.filter((warning, at) => warning !== undefined && line.values[at] !== null).length, 0)
  const description = `Line chart of ${label.toLowerCase()} per ${unit}, ${lines.length} ${lines.length === 1 ? 'line' : 'lines'}: ${lines.map((line) => line.label).join(', ')}. Days without data are gaps.${marked > 0 ? ` ${marked} ${marked === 1 ? 'point is' : 'points are'} incomplete, drawn apart from the lines.` : ''} The axis starts at 0. The data table below lists every value.`
  return (
    <figure class='chart-card' data-chart={metric}>
      <figcaption>
        <h3>{label}{percent ? ' (%)' : ''}</h3>
        <p class='hint metric-help'>{metricDescription(session.metrics, metric)}</p>
      </figcaption>
      <LineChart x={model.x} lines={lines} label={description} kind={kind} percent={percent} axisLabel={axisNote(kind)} />
      <details onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>Data table: {label.toLowerCase()}</summary>
        {open && (
          <div class='table-scroll' tabIndex={0} role='region' aria-label={`${label} values`}>
            <table class='data' data-series-table={metric}>
              <thead>
                <tr>
                  <th scope='col'>{unit === 'day' ? 'Date' : 'Month'}</th>
                  {lines.map((line) => <th key={line.key} scope='col'>{line.label}</th>)}
                </tr>
              </thead>
              <tbody>
                {/* Latest first, as the API lists entries. */}
                {model.x.map((_, index) => model.x.length - 1 - index).map((at) => (
                  <tr key={model.x[at]}>
                    <th scope='row'>{model.x[at]}</th>
                    {lines.map((line) => {
                      const value = line.values[at]
                      const warning = line.warnings[at]
                      if (value === null || value === undefined) {
                        // A gap: say whose data is missing, when the day is inside their coverage.
                        const missing = missingText(own.get(line.key) ?? [], line.line, model.x[at] ?? '', period)
                        return <td key={line.key} class='no-value' data-missing={missing === '' ? undefined : ''}>{NO_VALUE}{missing === '' ? '' : ` (no data; ${missing})`}</td>
                      }
                      return warning === undefined
                        ? <td key={line.key}>{format(value)}</td>
                        : <td key={line.key} class='incomplete-value' data-incomplete={warning.accountsMissing ? 'accounts' : 'metrics'}>{format(value)} <span class='warning'>(⚠ {warning.text})</span></td>
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </details>
    </figure>
  )
}
