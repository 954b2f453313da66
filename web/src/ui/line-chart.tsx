import { useEffect, useRef } from 'preact/hooks'
import UPlot from 'uplot'
import type { MetricKind } from '../model/catalog.js'
import { axisRange, clusterMarks, pointStates, type Mark, type PointState } from '../model/points.js'

/**
 * A uPlot line chart, sized to its container and redrawn when the container resizes. Null values
 * are gaps (spanGaps off): a day the API returned no entry for is not drawn as zero. A point whose
 * data is incomplete (fewer accounts reported than expected: include=status) is cut out of the
 * line and drawn as a hollow point, a carried stock value is dashed, the marks of incomplete
 * points are clustered in a strip above the plot (model/points.ts), and the legend says why. Times are UTC dates, as the API's are. The canvas is
 * an image to assistive technology; the data table next to each chart carries the same numbers
 * and the same warnings as text.
 */

/**
 * The lines' colours: the Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008; Wong,
 * Nature Methods 8:441, 2011), made for categorical data and told apart with every common colour
 * vision deficiency, without its yellow (not visible on white) and its black (kept for the
 * marks). Past six lines the colours repeat, dashed. The legend's text stays dark; only the
 * marker and the line carry the colour.
 */
export const LINE_COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#56b4e9', '#e69f00']
/**
 * The incomplete-point mark above the plot: black, a triangle when accounts are missing, a ring
 * when only a metric is. No line is black, so no line looks like a mark, in any colour vision (an
 * amber mark was as close to the vermilion line as two lines may be, for protanopes).
 */
export const MARK_COLOUR = '#000000'

/** Why a point's data is incomplete. */
export interface PointWarning {
  text: string
  /** Fewer accounts reported than expected (marked with a triangle); else only some metric was left out (a ring). */
  accountsMissing: boolean
  /** Cut out of the line (model/points.ts drawnApart); else on the line, marked. */
  apart?: boolean
  /** The figure was computed by the gap rules (gaps=carry): a rate over the account-days reporting both its parts. */
  carryRules?: boolean
}

export interface ChartLine {
  label: string
  /** The API's values (the legend and the data table show these). */
  values: Array<number | null>
  /** Per point: why its data is incomplete, or undefined when it is complete. */
  warnings?: Array<PointWarning | undefined>
  /** Per point: complete (on the line), partial (cut out, a hollow point) or carried (dashed). */
  states?: PointState[]
}

const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })
/** The strip above the plot where the clustered marks go (CSS pixels). */
const MARK_STRIP = 22
/** Marks closer than this (CSS pixels) are one cluster. */
const MARK_SPACING = 26

/**
 * The y axis as wide as its longest tick label (uPlot's autosize recipe): a fixed width clipped
 * "200.0 %" to "00.0 %". uPlot calls it again with the new ticks until the width settles.
 */
function axisWidth (self: UPlot, values: string[] | null, axisIndex: number, cycle: number): number {
  const axis = self.axes[axisIndex] as UPlot.Axis & { _size?: number, ticks: { size: number }, gap: number, font: [string] }
  if (cycle > 1 && axis._size !== undefined) return axis._size
  const longest = (values ?? []).reduce((found, value) => value.length > found.length ? value : found, '')
  self.ctx.font = axis.font[0]
  return Math.ceil(axis.ticks.size + axis.gap + self.ctx.measureText(longest).width / devicePixelRatio + 6)
}

/**
 * What uPlot does not draw itself (its draw hook, in canvas pixels): carried segments dashed,
 * partial points hollow (at the top edge, pointing up, when above the axis), and the marks of
 * incomplete points in the strip above the plot, clustered.
 */
function drawExtras (self: UPlot, lines: ChartLine[], element: HTMLElement): void {
  const { ctx } = self
  const ratio = devicePixelRatio
  const top = self.bbox.top
  const bottom = self.bbox.top + self.bbox.height
  const yOf = (value: number) => self.valToPos(value, 'y', true)
  const xOf = (at: number) => self.valToPos(self.data[0][at] as number, 'x', true)
  const marks: Mark[] = []
  ctx.save()
  lines.forEach((line, index) => {
    const colour = LINE_COLOURS[index % LINE_COLOURS.length] ?? '#333'
    const states = line.states ?? []
    ctx.strokeStyle = colour
    ctx.lineWidth = 2 * ratio
    // Carried segments: from each carried point to its neighbours on the line, dashed.
    ctx.setLineDash([5 * ratio, 4 * ratio])
    states.forEach((state, at) => {
      const value = line.values[at]
      if (state !== 'carried' || value === null || value === undefined) return
      for (const next of [at - 1, at + 1]) {
        const other = line.values[next]
        if (other === null || other === undefined || states[next] === 'partial') continue
        ctx.beginPath()
        ctx.moveTo(xOf(at), yOf(value))
        ctx.lineTo(xOf(next), yOf(other))
        ctx.stroke()
      }
    })
    ctx.setLineDash([])
    // Partial points: hollow, in the line's colour; above the axis, an arrow at the top edge.
    ctx.fillStyle = '#ffffff'
    states.forEach((state, at) => {
      const value = line.values[at]
      if (state !== 'partial' || value === null || value === undefined) return
      const x = xOf(at)
      const y = yOf(value)
      ctx.beginPath()
      if (y < top) {
        ctx.moveTo(x, top)
        ctx.lineTo(x - 5 * ratio, top + 8 * ratio)
        ctx.lineTo(x + 5 * ratio, top + 8 * ratio)
        ctx.closePath()
      } else {
        ctx.arc(x, Math.min(y, bottom), 3.5 * ratio, 0, 2 * Math.PI)
      }
      ctx.fill()
      ctx.stroke()
    })
    line.warnings?.forEach((warning, at) => {
      const value = line.values[at]
      if (warning !== undefined && value !== null && value !== undefined) marks.push({ x: xOf(at), accountsMissing: warning.accountsMissing })
    })
  })
  // The marks: one per cluster, with its count when it stands for several points.
  ctx.strokeStyle = MARK_COLOUR
  ctx.fillStyle = MARK_COLOUR
  ctx.lineWidth = 2 * ratio
  ctx.font = `${11 * ratio}px system-ui, sans-serif`
  ctx.textBaseline = 'middle'
  const y = top - (MARK_STRIP / 2) * ratio
  const size = 6 * ratio
  const clusters = clusterMarks(marks, MARK_SPACING * ratio)
  for (const cluster of clusters) {
    ctx.beginPath()
    if (cluster.accountsMissing) {
      ctx.moveTo(cluster.x, y - size)
      ctx.lineTo(cluster.x - size, y + size * 0.8)
      ctx.lineTo(cluster.x + size, y + size * 0.8)
      ctx.closePath()
      ctx.fill()
    } else {
      ctx.arc(cluster.x, y, size * 0.7, 0, 2 * Math.PI)
      ctx.stroke()
    }
    if (cluster.count > 1) ctx.fillText(String(cluster.count), cluster.x + size + 2 * ratio, y)
  }
  ctx.restore()
  // Where the plot is and what it spans, in CSS pixels, for the browser tests to read the canvas by.
  const scale = self.scales.y
  element.dataset.plot = JSON.stringify({
    left: self.bbox.left / ratio,
    top: self.bbox.top / ratio,
    width: self.bbox.width / ratio,
    height: self.bbox.height / ratio,
    ymin: scale?.min,
    ymax: scale?.max,
    marks: marks.length,
    clusters: clusters.length,
  })
}

export function LineChart ({ x, lines, label, kind, percent, axisLabel, height = 240 }: { x: string[], lines: ChartLine[], label: string, kind: MetricKind, percent: boolean, axisLabel?: string, height?: number }) {
  const container = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = container.current
    if (element === null) return
    const times = x.map((value) => Date.parse(`${value.length === 7 ? `${value}-01` : value}T00:00:00Z`) / 1000)
    const axisValue = (value: number) => percent ? `${(value * 100).toFixed(1)} %` : COMPACT.format(value)
    const states = lines.map((line) => line.states ?? line.values.map((): PointState => 'complete'))
    const range = axisRange(kind, lines.map((line, index) => ({ values: line.values, states: states[index] ?? [] })))
    const plot = new UPlot({
      width: Math.max(200, element.clientWidth),
      height,
      // On the right, room for half of the last date label, centred on the period's last day.
      padding: [MARK_STRIP, 36, null, null],
      tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true }, y: { range: () => [range.min, range.max] } },
      axes: [
        {
          stroke: '#333',
          // An ISO date is wider than uPlot's default spacing assumes.
          space: x[0]?.length === 7 ? 60 : 90,
          values: (_plot, ticks) => {
            const texts = ticks.map((tick) => isoTick(tick, x[0]?.length === 7))
            // The tick labels as drawn, for the browser tests (the canvas has no text to read).
            element.dataset.xTicks = JSON.stringify(texts)
            return texts
          },
        },
        { stroke: '#333', size: axisWidth, values: (_plot, ticks) => ticks.map(axisValue), ...(axisLabel === undefined ? {} : { label: axisLabel, labelSize: 20, labelFont: '12px system-ui, sans-serif' }) },
      ],
      legend: { live: true },
      hooks: { draw: [(self) => drawExtras(self, lines, element)] },
      series: [
        { label: x[0]?.length === 7 ? 'Month' : 'Date', value: (_plot, ts) => ts === null ? '—' : new Date(ts * 1000).toISOString().slice(0, x[0]?.length === 7 ? 7 : 10) },
        ...lines.map((line, index) => ({
          label: line.label,
          stroke: LINE_COLOURS[index % LINE_COLOURS.length],
          width: 2,
          // Past the palette the colours repeat: dashes tell them apart.
          dash: index >= LINE_COLOURS.length ? [6, 4] : undefined,
          spanGaps: false,
          points: { show: x.length <= 40 },
          // The legend shows the API's value, also where the line is cut (a partial point).
          value: (_plot: UPlot, _value: number | null, _series: number, at: number | null) => {
            const value = at === null ? null : line.values[at] ?? null
            if (value === null) return '—'
            const shown = percent ? `${(value * 100).toFixed(4)} %` : value.toLocaleString('en-US')
            const warning = at === null ? undefined : line.warnings?.[at]
            return warning === undefined ? shown : `${shown} (⚠ ${warning.text})`
          },
        })),
      ],
    }, [times, ...lines.map((line, index) => pointStates(line.values, (states[index] ?? []).map((state) => state === 'partial'), (states[index] ?? []).map((state) => state === 'carried')).line.map((value, at) => (states[index] ?? [])[at] === 'carried' ? null : value))] as UPlot.AlignedData, element)
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(200, element.clientWidth), height }))
    observer.observe(element)
    return () => {
      observer.disconnect()
      plot.destroy()
    }
  }, [x, lines, kind, percent, axisLabel, height])
  return <div class='chart' ref={container} role='img' aria-label={label} />
}

/** A date tick as ISO text (2026-11-04, or 2026-11 on monthly charts), as the rest of the page writes dates. */
function isoTick (tick: number, monthly: boolean): string {
  return new Date(tick * 1000).toISOString().slice(0, monthly ? 7 : 10)
}
