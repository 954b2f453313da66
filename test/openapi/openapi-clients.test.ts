import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@hey-api/openapi-ts'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helpers/app.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'
import { fetchDocument } from './document.js'

/**
 * The published contract is usable by independent generators: clients generated from
 * GET /openapi.json by openapi-typescript and by @hey-api/openapi-ts compile in strict mode,
 * refuse a report type the API does not have, and take `limit` as a number. `@ts-expect-error`
 * makes a type that accepted `weekly` fail the compilation.
 */

const OPENAPI_TYPESCRIPT_USE = `
import type { paths } from './openapi-typescript.js'
type AnalyticsQuery = NonNullable<paths['/analytics/']['get']['parameters']['query']>
type PostsQuery = NonNullable<paths['/posts']['get']['parameters']['query']>
export const agg: AnalyticsQuery = { type: 'agg', brand_id: [1, 2], platform: ['fb', 'instagram'], split_by_platform: true }
// @ts-expect-error: there is no weekly report
export const weekly: AnalyticsQuery = { type: 'weekly' }
export const page: PostsQuery = { limit: 2, order_by: 'views', order: 'asc', post_type: ['reel'] }
// @ts-expect-error: limit is a number
export const textLimit: PostsQuery = { limit: '2' }
type Daily = paths['/analytics/']['get']['responses'][200]['content']['application/json']
export const firstDate = (report: Daily): string | undefined => 'next_cursor' in report ? report.data[0]?.date : undefined
`

const HEY_API_USE = `
import type { GetAnalyticsData, ListPostsData, DailyReport, AggReport } from './hey-api/index.js'
export const agg: GetAnalyticsData['query'] = { type: 'agg', brand_id: [1, 2] }
// @ts-expect-error: there is no weekly report
export const weekly: GetAnalyticsData['query'] = { type: 'weekly' }
export const page: ListPostsData['query'] = { limit: 2 }
export const total = (report: AggReport): number => report.aggregates.total.views
export const cursor = (report: DailyReport): string | undefined => report.next_cursor
`

function compile (dir: string, entry: string): string[] {
  const program = ts.createProgram([join(dir, entry)], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    types: [],
  })
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
}

describe('clients generated from GET /openapi.json', () => {
  let test: TestStore
  let app: FastifyInstance
  let dir: string
  let document: Record<string, unknown>
  before(async () => {
    test = await createTestStore('sqlite')
    app = await buildTestApp(test.store)
    document = await fetchDocument(app) as unknown as Record<string, unknown>
    dir = mkdtempSync(join(tmpdir(), 'pa-clients-'))
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document))
  })
  after(async () => {
    await app.close()
    await test.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  it('openapi-typescript: compiles strict, refuses type=weekly, takes limit: 2', async () => {
    writeFileSync(join(dir, 'openapi-typescript.ts'), astToString(await openapiTS(document as never)))
    writeFileSync(join(dir, 'use-openapi-typescript.ts'), OPENAPI_TYPESCRIPT_USE)
    assert.deepEqual(compile(dir, 'use-openapi-typescript.ts'), [])
  })

  it('@hey-api/openapi-ts: compiles strict, refuses type=weekly, takes limit: 2', async () => {
    await createClient({ input: join(dir, 'openapi.json'), output: join(dir, 'hey-api'), plugins: ['@hey-api/typescript'], logs: { level: 'silent' } })
    writeFileSync(join(dir, 'use-hey-api.ts'), HEY_API_USE)
    assert.deepEqual(compile(dir, 'use-hey-api.ts'), [])
  })

  it('a generated type that accepted weekly would fail the compilation (the check can fail)', () => {
    writeFileSync(join(dir, 'loose.ts'), "type Q = { type?: string }\n// @ts-expect-error: would be unused\nexport const weekly: Q = { type: 'weekly' }\n")
    assert.equal(compile(dir, 'loose.ts').length, 1)
  })
})
