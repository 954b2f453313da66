import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

/**
 * The partner dashboard (docs/dashboard.md): the static single page built by `npm run build`
 * (Vite, from web/) served under /dashboard/, and GET / sent there. Public like /docs: no token,
 * no rate limit; every figure on the page comes from the public API with the partner's own token.
 */

/**
 * Where Vite writes the page: <repo>/dist/dashboard. This file sits at the same depth under src/
 * (run through tsx) as under dist/ (compiled), so one relative path serves both.
 */
export const DASHBOARD_ASSETS_DIR = fileURLToPath(new URL('../../../../dist/dashboard/', import.meta.url))

/**
 * Nothing but the page's own origin: the page has no inline script or style (uPlot and Preact
 * set styles through the CSSOM, which style-src does not govern), no eval, no CDN, no font.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

export async function dashboardRoutes (app: FastifyInstance, options: { assetsDir?: string } = {}): Promise<void> {
  const root = options.assetsDir ?? DASHBOARD_ASSETS_DIR
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('content-security-policy', DASHBOARD_CSP)
    // The API's no-store would stop browsers caching the page's hashed assets: caching is
    // decided per file below (the page holds no partner data; its figures come from the API).
    reply.removeHeader('cache-control')
    reply.removeHeader('pragma')
  })

  // Keep the query string: it holds the dashboard's filters (never a secret).
  const toDashboard = (url: string) => '/dashboard/' + (url.includes('?') ? url.slice(url.indexOf('?')) : '')
  app.get('/', { schema: { hide: true } }, async (request, reply) => reply.redirect(toDashboard(request.url), 302))
  app.get('/dashboard', { schema: { hide: true } }, async (request, reply) => reply.redirect(toDashboard(request.url), 302))

  if (!existsSync(join(root, 'index.html'))) {
    // A checkout that skipped the build: say how to fix it rather than answer a bare 404.
    app.get('/dashboard/*', { schema: { hide: true } }, async (_request, reply) => {
      reply.code(503).type('text/plain; charset=utf-8')
      return 'The dashboard is not built: run `npm run build` (npm start does it), then restart the service.\n'
    })
    return
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/dashboard/',
    // Swagger UI registers @fastify/static too; this scope needs no reply.sendFile of its own.
    decorateReply: false,
    cacheControl: false,
    setHeaders: (res, path) => {
      // Vite puts a content hash in every asset name: those never change; the page itself may.
      const immutable = path.startsWith(join(root, 'assets'))
      res.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    },
  })
}
