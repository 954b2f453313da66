import { useEffect, useRef } from 'preact/hooks'
import UPlot from 'uplot'

/**
 * A uPlot line chart, sized to its container and redrawn when the container resizes. Null values
 * are gaps (spanGaps off): a day the API returned no entry for is not drawn as zero. Times are
 * UTC dates, as the API's are. The canvas is an image to assistive technology; the data table
 * next to each chart carries the same numbers as text.
 */

/** Colours with at least 4.5:1 contrast on white, so lines and legend text stay readable. */
export const LINE_COLOURS = ['#1f5fa8', '#b3420e', '#2e7d32', '#8e24aa', '#c2185b', '#00695c', '#5d4037', '#455a64', '#6d6a00', '#3949ab']

export interface ChartLine {
  label: string
  values: Array<number | null>
}

const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })

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
        { stroke: '#333', size: 60, values: (_plot, ticks) => ticks.map(axisValue) },
      ],
      legend: { live: true },
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
          value: (_plot: UPlot, value: number | null) => value === null ? '—' : percent ? `${(value * 100).toFixed(4)} %` : value.toLocaleString('en-US'),
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
