import { setMaxListeners } from 'node:events'

/**
 * An attempt's signal: aborted at its time limit (reason a TimeoutError) or when `stop` aborts
 * (its reason). `clear()` must be called once the attempt is over.
 *
 * Not `AbortSignal.any([AbortSignal.timeout(ms), stop])`: Node 20 lets the timeout signal inside
 * such a composite be garbage collected, and then it never fires (nodejs/node#57736) — a hanging
 * endpoint's attempt would stay under way, holding its slot, long after its time limit. A timer
 * this closure holds cannot be collected before it fires or is cleared.
 */
export function attemptDeadline (timeoutMs: number, stop: AbortSignal): { signal: AbortSignal, clear: () => void } {
  const controller = new AbortController()
  const onStop = (): void => { controller.abort(stop.reason) }
  const timer = setTimeout(() => { controller.abort(new DOMException('The attempt got no answer in time', 'TimeoutError')) }, timeoutMs)
  if (stop.aborted) onStop()
  else stop.addEventListener('abort', onStop, { once: true })
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer)
      stop.removeEventListener('abort', onStop)
    },
  }
}

/**
 * The worker's stop: every attempt under way listens to its signal (up to WEBHOOK_CONCURRENCY at
 * once), so Node's warning past 10 listeners ("possible EventTarget memory leak") is turned off
 * for it — they are removed as each attempt ends.
 */
export function createStopController (): AbortController {
  const controller = new AbortController()
  setMaxListeners(Infinity, controller.signal)
  return controller
}
