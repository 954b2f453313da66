/**
 * The deadline of one Redis command (or of the first connection's readiness), counted in time this process could have read the answer
 * (docs/reliability.md "Bounded waits").
 *
 * A plain timer misjudges a busy instance: when the event loop is blocked by CPU work for longer
 * than the deadline, the timer phase runs before the poll phase reads the socket, so an answer
 * Redis sent in time, already waiting to be read, would count as "no answer" and the instance would
 * switch to its stricter in-process limits. So the wait is counted in ticks of at most
 * `DEADLINE_TICK_MS`; a tick that fired late (the loop was blocked) is credited at most
 * `2 × DEADLINE_TICK_MS`. When the credited time reaches the deadline, the command still gets the
 * answer that is already waiting: the verdict is given from a `setImmediate` callback, which runs
 * after the poll phase has read the socket. On an idle process a Redis that does not answer fails
 * the command after the deadline, as before.
 */

export const DEADLINE_TICK_MS = 100

export class RedisDeadlineError extends Error {
  constructor (readonly deadlineMs: number) {
    super(`Redis did not answer within ${deadlineMs} ms`)
    this.name = 'RedisDeadlineError'
  }
}

export async function withRedisDeadline<T> (work: Promise<T>, deadlineMs: number): Promise<T> {
  return await new Promise<T>((resolve, reject) => {
    let done = false
    let credited = 0
    let last = performance.now()
    let timer: NodeJS.Timeout | undefined
    const tick = (): void => {
      const now = performance.now()
      credited += Math.min(now - last, 2 * DEADLINE_TICK_MS)
      last = now
      if (credited < deadlineMs) {
        timer = setTimeout(tick, Math.min(DEADLINE_TICK_MS, deadlineMs - credited)).unref()
        return
      }
      timer = undefined
      setImmediate(() => {
        if (done) return
        done = true
        reject(new RedisDeadlineError(deadlineMs))
      })
    }
    // Unreferenced: what is awaited (a socket) keeps the process up, the deadline alone does not.
    timer = setTimeout(tick, Math.min(DEADLINE_TICK_MS, deadlineMs)).unref()
    work.then((value) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(value)
    }, (error: unknown) => {
      if (done) return
      done = true
      clearTimeout(timer)
      reject(error)
    })
  })
}
