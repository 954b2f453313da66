import { performance } from 'node:perf_hooks'

/**
 * Whether this process is busy serving the API, for the background work that gives way to it
 * (webhook deliveries: docs/webhooks.md "Delivery and the API's load"). Busy means that over the
 * last window at least BUSY_REQUESTS requests arrived and the event loop was busy for more than
 * BUSY_UTILIZATION of the time: a process saturated by partners' requests. Then the deliveries
 * slow to a trickle and the requests keep the process; on an idle or lightly used process the
 * deliveries run at full speed, using what the requests leave.
 */
export interface ForegroundLoad {
  /** Called once per request as it arrives. */
  noteRequest: () => void
  /** Whether the API keeps the process busy (re-judged at most once per window). */
  busy: () => boolean
}

export const FOREGROUND_WINDOW_MS = 200
/** 250 requests a second: far above a dashboard's or an ETL job's pace, well below a saturated process's. */
export const BUSY_REQUESTS = 50
export const BUSY_UTILIZATION = 0.5

export function createForegroundLoad (): ForegroundLoad {
  let requests = 0
  let windowStart = performance.now()
  let loopAtStart = performance.eventLoopUtilization()
  let busy = false
  return {
    noteRequest () { requests++ },
    busy () {
      const at = performance.now()
      if (at - windowStart >= FOREGROUND_WINDOW_MS) {
        const { utilization } = performance.eventLoopUtilization(loopAtStart)
        busy = requests >= BUSY_REQUESTS && utilization > BUSY_UTILIZATION
        requests = 0
        windowStart = at
        loopAtStart = performance.eventLoopUtilization()
      }
      return busy
    },
  }
}
