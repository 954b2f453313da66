/**
 * A scrape never waits on the store longer than a bound: the read goes on in the background (a
 * later scrape joins it rather than starting another) and the gauges keep their last values.
 */
export function boundedRead (read: () => Promise<void>, timeoutMs: number): () => Promise<void> {
  let reading: Promise<void> | undefined
  return async () => {
    reading ??= read().finally(() => { reading = undefined })
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs) })
    try {
      await Promise.race([reading, late])
    } catch {
      // A failed read leaves the last values; the store's own metrics show why.
    } finally {
      clearTimeout(timer)
    }
  }
}
