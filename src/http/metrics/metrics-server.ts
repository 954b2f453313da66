import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * The Prometheus listener (docs/operations.md "Metrics"): a plain HTTP server of its own, on
 * METRICS_HOST:METRICS_PORT (loopback by default), never the public port. It serves `GET /metrics`
 * and nothing else; a scrape that cannot be rendered within its bound is a 503, not a hang.
 */

export interface MetricsServer {
  /** The address it listens on, e.g. http://127.0.0.1:9464. */
  url: string
  close: () => Promise<void>
}

export interface RenderedMetrics {
  contentType: string
  body: string
}

/** The longest a scrape waits for the workers' metrics (prom-client's own bound is 5 s). */
export const SCRAPE_TIMEOUT_MS = 5000

export async function startMetricsServer (host: string, port: number, render: () => Promise<RenderedMetrics>): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0]
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found: metrics are at GET /metrics\n')
      return
    }
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error('metrics not rendered in time')), SCRAPE_TIMEOUT_MS) })
    Promise.race([render(), timeout]).then((metrics) => {
      response.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : metrics.body)
    }, (error: unknown) => {
      response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics unavailable: ${error instanceof Error ? error.message : String(error)}\n`)
    }).finally(() => clearTimeout(timer))
  })
  // Scrapers keep their connection open between scrapes; no idle one may hold a shutdown.
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => { server.off('error', reject); resolve() })
  })
  const address = server.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shown}:${address.port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
