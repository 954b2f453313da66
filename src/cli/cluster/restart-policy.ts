/**
 * When the primary replaces a worker that died (docs/operations.md "Workers"). A worker that
 * crashes once is replaced at once (after REPLACE_DELAY_MS, so that a Ctrl-C reaching the whole
 * process group is seen by the primary before it forks anything); one that keeps crashing must
 * not turn the machine into a fork loop: at most MAX_RESTARTS replacements start within any
 * RESTART_WINDOW_MS, the next waits until the oldest of them leaves the window.
 */

export const REPLACE_DELAY_MS = 100
export const MAX_RESTARTS = 5
export const RESTART_WINDOW_MS = 60_000

export class RestartPolicy {
  /** Start times (ms) of the replacements of the last window, oldest first. */
  private readonly starts: number[] = []

  constructor (
    private readonly maxRestarts = MAX_RESTARTS,
    private readonly windowMs = RESTART_WINDOW_MS,
    private readonly delayMs = REPLACE_DELAY_MS,
  ) {}

  /** How long to wait before the next replacement starts, and books that start. */
  nextDelay (nowMs: number): number {
    while (this.starts.length > 0 && (this.starts[0] ?? 0) <= nowMs - this.windowMs) this.starts.shift()
    // The max-th most recent start (booked ones included): the new one comes a window after it.
    const bound = this.starts.length >= this.maxRestarts ? (this.starts[this.starts.length - this.maxRestarts] ?? 0) + this.windowMs : 0
    const at = Math.max(nowMs + this.delayMs, bound)
    // Never earlier than the last booked start, so the list stays sorted.
    this.starts.push(at)
    return at - nowMs
  }
}
