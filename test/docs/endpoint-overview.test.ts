import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import type { RouteEntry } from '../../src/http/app.js'
import { buildTestApp } from '../helpers/app.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'
import { scanTables, type Table } from '../helpers/markdown-tables.js'

/**
 * The endpoint overview at the top of docs/api-reference.md ("Basics") against the app's own
 * route table (issue 27.8: it left out GET /changes): every JSON route is on a row of the overview
 * with its authentication and rate limit as the route declares them, and every path of the
 * overview is served with the methods it names. A row ending "and below" covers every route under
 * its paths (`/webhooks/{id}/test`); HEAD, which every GET path answers, is not listed.
 */

const REPO = resolve(fileURLToPath(new URL('../../', import.meta.url)))

interface OverviewRow { line: number, methods: string[], paths: string[], below: boolean, authentication: string, rateLimited: string }

function overviewTable (): Table {
  const markdown = readFileSync(resolve(REPO, 'docs/api-reference.md'), 'utf8')
  const basics = markdown.indexOf('\n## Basics\n')
  assert.ok(basics > 0, 'docs/api-reference.md has a Basics section')
  const lineOfBasics = markdown.slice(0, basics).split('\n').length + 1
  const table = scanTables(markdown).tables.find((found) => found.line > lineOfBasics)
  assert.ok(table !== undefined && table.header === '| method | path | authentication | rate limited |', 'the overview is the first table of Basics')
  return table
}

function rowsOf (table: Table): OverviewRow[] {
  return table.rows.map(({ line, cells }) => ({
    line,
    methods: (cells[0] ?? '').split(',').map((method) => method.trim()),
    paths: [...(cells[1] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ''),
    below: /\band below\b/.test(cells[1] ?? ''),
    authentication: cells[2] ?? '',
    rateLimited: cells[3] ?? '',
  }))
}

/** The route's path as the reference writes it: `{id}` for `:id`. */
const documentedPath = (route: RouteEntry): string => route.url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')

const covers = (row: OverviewRow, route: RouteEntry): boolean => row.methods.includes(route.method) &&
  row.paths.some((path) => documentedPath(route) === path || (row.below && documentedPath(route).startsWith(`${path}/`)))

describe('the endpoint overview of docs/api-reference.md', () => {
  let store: TestStore
  let app: FastifyInstance
  before(async () => {
    store = await createTestStore('sqlite')
    app = await buildTestApp(store.store)
  })
  after(async () => {
    await app.close()
    await store.cleanup()
  })

  it('lists every JSON route, with the authentication and rate limit it declares', () => {
    const rows = rowsOf(overviewTable())
    const problems: string[] = []
    for (const route of app.routeTable.filter((entry) => entry.json && entry.method !== 'HEAD')) {
      const row = rows.find((candidate) => covers(candidate, route))
      if (row === undefined) {
        problems.push(`${route.method} ${route.url} is not in the overview`)
        continue
      }
      const bearer = route.access?.auth === 'bearer'
      if (bearer !== (row.authentication === 'bearer token')) problems.push(`${route.method} ${route.url}: authentication "${row.authentication}" (line ${row.line})`)
      const limited = { user: 'per user', ip: 'per client IP', none: 'no' }[route.access?.rateLimit ?? 'none']
      if (row.rateLimited !== limited) problems.push(`${route.method} ${route.url}: rate limited "${row.rateLimited}", expected "${limited}" (line ${row.line})`)
    }
    assert.deepEqual(problems, [])
  })

  it('names only paths the service serves, with the methods it names', () => {
    const served = app.routeTable.map((route) => ({ method: route.method, path: documentedPath(route) }))
    const problems: string[] = []
    for (const row of rowsOf(overviewTable())) {
      if (row.below) {
        // Each method is served on one of the paths or under them.
        for (const method of row.methods) {
          if (!served.some((route) => route.method === method && row.paths.some((path) => route.path === path || route.path.startsWith(`${path}/`)))) problems.push(`${method} under ${row.paths.join(', ')} (line ${row.line}) is not served`)
        }
        continue
      }
      for (const method of row.methods) {
        for (const path of row.paths) {
          if (!served.some((route) => route.method === method && route.path === path)) problems.push(`${method} ${path} (line ${row.line}) is not served`)
        }
      }
    }
    assert.deepEqual(problems, [])
  })
})
