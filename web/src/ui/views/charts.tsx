import { useMemo, useState } from 'preact/hooks'
import { formatInteger, formatRatioAsPercent, NO_VALUE } from '../../model/format.js'
import { analyticsExportArgs, seriesQuery } from '../../model/queries.js'
import { buildSeries, CHART_METRICS, type ChartMetric, type SeriesModel } from '../../model/series.js'
import { DownloadCsv } from '../download-csv.js'
import { LineChart } from '../line-chart.js'
import { useSeries } from '../loads.js'
import { Empty, Loading, ProblemNotice } from '../notices.js'
import type { ViewProps } from '../view-props.js'

/** Line charts over time: every daily page walked (or the monthly breakdown), one line per group. */

const METRIC_LABELS: Record<ChartMetric, string> = {
  views: 'Views',
  interactions: 'Interactions',
  followers: 'Followers',
  engagement_rate: 'Engagement rate (%)',
}

export function Charts ({ filters, period, scope, brandNames, revision }: ViewProps) {
  const query = seriesQuery(filters, scope, period)
  const state = useSeries(query, revision)
  const model = useMemo(() => state.status === 'done' ? buildSeries(state.value, filters.granularity, period, brandNames) : undefined, [state, filters.granularity, period.since, period.until, brandNames])
  const unit = filters.granularity === 'daily' ? 'day' : 'month'
  return (
    <section class='panel' aria-labelledby='charts-title'>
      <div class='panel-head'>
        <h2 id='charts-title'>Over time, by {unit}</h2>
        {state.status === 'done' && <DownloadCsv rows={state.value} filename={`analytics-${filters.granularity}-${period.since}-${period.until}.csv`} exportArgs={analyticsExportArgs(query)} />}
      </div>
      {state.status === 'loading' && <Loading label={filters.granularity === 'daily' ? 'Loading daily pages' : 'Loading the monthly breakdown'} progress={state.progress} />}
      {state.status === 'error' && <ProblemNotice problem={state.problem} />}
      {state.status === 'done' && state.value.length === 0 && <Empty period={period} what={`${filters.granularity} entries`} />}
      {model !== undefined && model.lines.length > 0 && (
        <div class='chart-grid'>
          {CHART_METRICS.map((metric) => <ChartCard key={metric} metric={metric} model={model} unit={unit} />)}
        </div>
      )}
    </section>
  )
}

function ChartCard ({ metric, model, unit }: { metric: ChartMetric, model: SeriesModel, unit: string }) {
  const [open, setOpen] = useState(false)
  const lines = useMemo(() => model.lines.map((line) => ({ key: line.key, label: line.label, values: line.values[metric] })), [model, metric])
  const percent = metric === 'engagement_rate'
  const format = percent ? formatRatioAsPercent : formatInteger
  const label = `Line chart of ${METRIC_LABELS[metric].toLowerCase()} per ${unit}, ${lines.length} ${lines.length === 1 ? 'line' : 'lines'}: ${lines.map((line) => line.label).join(', ')}. Days without data are gaps. The data table below lists every value.`
  return (
    <figure class='chart-card' data-chart={metric}>
      <figcaption><h3>{METRIC_LABELS[metric]}</h3></figcaption>
      <LineChart x={model.x} lines={lines} label={label} percent={percent} />
      <details onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>Data table: {METRIC_LABELS[metric].toLowerCase()}</summary>
        {open && (
          <div class='table-scroll' tabIndex={0} role='region' aria-label={`${METRIC_LABELS[metric]} values`}>
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
                      return <td key={line.key} class={value === null || value === undefined ? 'no-value' : undefined}>{value === null || value === undefined ? NO_VALUE : format(value)}</td>
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
