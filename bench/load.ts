/**
 * The load generator of `npm run bench`, run as a process of its own so that it does not share
 * the server's event loop: `bench/analytics.ts` spawns it once per measured route with
 *
 *   node --import tsx bench/load.ts
 *
 * and writes one JSON object on its stdin, `{"url", "headers", "connections", "duration"}`
 * (headers carry the bearer token, hence stdin rather than argv, which `ps` shows). It runs
 * autocannon programmatically with those options and prints one JSON object on stdout,
 * `{"rps", "p50", "p99", "total", "non2xx", "errors", "timeouts"}` (latencies in ms). Anything
 * else it has to say goes to stderr; it exits 1 when autocannon fails.
 *
 * Use it by hand the same way, e.g.
 *   echo '{"url":"http://127.0.0.1:8000/health","connections":10,"duration":5}' | node --import tsx bench/load.ts
 */
import { text } from 'node:stream/consumers'
import autocannon from 'autocannon'

export interface LoadOptions {
  url: string
  headers?: Record<string, string>
  connections: number
  /** Seconds. */
  duration: number
}

export interface LoadResult {
  /** Average requests per second over the run. */
  rps: number
  p50: number
  p99: number
  total: number
  non2xx: number
  errors: number
  timeouts: number
}

async function main (): Promise<void> {
  const options = JSON.parse(await text(process.stdin)) as LoadOptions
  const result = await autocannon({
    url: options.url,
    headers: options.headers ?? {},
    connections: options.connections,
    duration: options.duration,
  })
  const summary: LoadResult = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  }
  process.stdout.write(JSON.stringify(summary) + '\n')
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
