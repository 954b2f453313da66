import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { generateClientSources } from '../scripts/openapi-source.js'

/**
 * The client's checked-in document and types must be what the service generates today: a route
 * schema change without `npm run generate -w @partner-analytics/client` fails here.
 */
describe('generated client types', () => {
  it('match a fresh generation from the service route schemas', async () => {
    const fresh = await generateClientSources()
    const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8')
    assert.equal(read('../openapi.json'), fresh.document, 'packages/client/openapi.json is stale: run npm run generate -w @partner-analytics/client')
    assert.equal(read('../src/generated/openapi.ts'), fresh.types, 'packages/client/src/generated/openapi.ts is stale: run npm run generate -w @partner-analytics/client')
  })
})
