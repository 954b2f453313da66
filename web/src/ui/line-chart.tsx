import { useEffect, useRef } from 'preact/hooks'
import UPlot from 'uplot'

/**
 * A uPlot line chart, sized to its container and redrawn when the container resizes. Null values
 * are gaps (spanGaps off): a day the API returned no entry for is not drawn as zero. A point whose
 * data is incomplete (fewer accounts reported than expected: include=status) is drawn with a
 * warning mark, and its legend value says why. Times are UTC dates, as the API's are. The canvas is
 * an image to assistive technology; the data table next to each chart carries the same numbers
 * and the same warnings as text.
 */

/** Colours with at least 4.5:1 contrast on white, so lines and legend text stay readable. */
export const LINE_COLOURS = ['#1f5fa8', '#b3420e', '#2e7d32', '#8e24aa', '#c2185b', '#00695c', '#5d4037', '#455a64', '#6d6a00', '#3949ab']
/** The incomplete-point mark: dark amber, a ring around the point, and a triangle above it when accounts are missing. */
export const MARK_COLOUR = '#8a5a00'

/** Why a point's data is incomplete. */
export interface PointWarning {
  text: string
  /** Fewer accounts reported than expected (marked with a triangle); else only some metric was left out (a ring). */
  accountsMissing: boolean
}

export interface ChartLine {
  label: string
  values: Array<number | null>
  /** Per point: why its data is incomplete, or undefined when it is complete. */
  warnings?: Array<PointWarning | undefined>
}

const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })

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

/** Draws the marks of incomplete points after the lines (uPlot's draw hook, in canvas pixels). */
function drawMarks (self: UPlot, lines: ChartLine[]): void {
  const { ctx } = self
  const size = 7 * devicePixelRatio
  ctx.save()
  ctx.strokeStyle = MARK_COLOUR
  ctx.fillStyle = MARK_COLOUR
  ctx.lineWidth = 2 * devicePixelRatio
  lines.forEach((line, index) => {
    line.warnings?.forEach((warning, at) => {
      const value = line.values[at]
      if (warning === undefined || value === null || value === undefined) return
      const x = self.valToPos(self.data[0][at] as number, 'x', true)
      const y = self.valToPos(value, self.series[index + 1]?.scale ?? 'y', true)
      ctx.beginPath()
      ctx.arc(x, y, size * 0.8, 0, 2 * Math.PI)
      ctx.stroke()
      if (!warning.accountsMissing) return
      ctx.beginPath()
      ctx.moveTo(x, y - size * 2.6)
      ctx.lineTo(x - size * 0.8, y - size * 1.3)
      ctx.lineTo(x + size * 0.8, y - size * 1.3)
      ctx.closePath()
      ctx.fill()
    })
  })
  ctx.restore()
}

export function LineChart ({ x, lines, label, percent, height = 240 }: { x: string[], lines: ChartLine[], label: string, percent: boolean, height?: number }) {
  const container = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = container.current
    if (element === null) return
    const times = x.map((value) => Date.parse(`${value.length === 7 ? `${value}-01` : value}T00:00:00Z`) / 1000)
    const axisValue = (value: number) => percent ? `${(value * 100).toFixed(1)} %` : COMPACT.format(value)
    const plot = new UPlot({
      width: Math.max(200, element.clientWidth),
      height,
      tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true } },
      axes: [
        { stroke: '#333' },
        { stroke: '#333', size: axisWidth, values: (_plot, ticks) => ticks.map(axisValue) },
      ],
      legend: { live: true },
      hooks: { draw: [(self) => drawMarks(self, lines)] },
      series: [
        { label: x[0]?.length === 7 ? 'Month' : 'Date', value: (_plot, ts) => ts === null ? '—' : new Date(ts * 1000).toISOString().slice(0, x[0]?.length === 7 ? 7 : 10) },
        ...lines.map((line, index) => ({
          label: line.label,
          stroke: LINE_COLOURS[index % LINE_COLOURS.length],
          width: 2,
          // Past ten lines the colours repeat: dashes tell them apart.
          dash: index >= LINE_COLOURS.length ? [6, 4] : undefined,
          spanGaps: false,
          points: { show: x.length <= 40 },
          value: (_plot: UPlot, value: number | null, _series: number, at: number | null) => {
            if (value === null) return '—'
            const shown = percent ? `${(value * 100).toFixed(4)} %` : value.toLocaleString('en-US')
            const warning = at === null ? undefined : line.warnings?.[at]
            return warning === undefined ? shown : `${shown} (⚠ ${warning.text})`
          },
        })),
      ],
    }, [times, ...lines.map((line) => line.values)] as UPlot.AlignedData, element)
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(200, element.clientWidth), height }))
    observer.observe(element)
    return () => {
      observer.disconnect()
      plot.destroy()
    }
  }, [x, lines, percent, height])
  return <div class='chart' ref={container} role='img' aria-label={label} />
}
