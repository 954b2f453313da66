import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { StatusOracle } from '../../../test/analytics/status-oracle.js'
import { PartnerAnalyticsClient, ValidationError } from '../src/index.js'
import { DATASET_START, recordingFetch, startServer, type RunningServer } from './server.js'

/**
 * The client's typed methods for GET /data-status (one page, and every account across pages) and
 * GET /catalog/metrics (public: no login), against a running server (SQLite: the methods do not
 * depend on the store, which the service's own tests cover on both).
 */

describe('client: data status and the metric catalogue', () => {
  let server: RunningServer
  before(async () => { server = await startServer('sqlite') })
  after(async () => { await server.close() })

  const clientFor = (fetchImpl?: typeof fetch) => new PartnerAnalyticsClient({
    baseUrl: server.baseUrl, clientKey: server.partner.clientKey, secretKey: server.partner.secretKey, ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
  })

  it('walks every account\'s status across pages, as the model computes it', async () => {
    const recorder = recordingFetch()
    const client = clientFor(recorder.fetch)
    const query = { since: DATASET_START, until: '2026-02-20', limit: 3 }
    const statuses = []
    for await (const status of client.accountStatuses(query)) statuses.push(status)
    const expected = new StatusOracle(server.dataset, [1, 2]).dataStatus({ since: query.since, until: query.until })
    assert.deepEqual(statuses.map(({ synced_at: _synced, ...rest }) => rest), expected)
    // One login, then one call per page of 3.
    assert.deepEqual(recorder.calls, ['POST /auth/login', ...Array.from({ length: Math.ceil(expected.length / 3) }, () => 'GET /data-status')])
    const page = await client.dataStatus({ ...query, platform: ['fb'] })
    assert.deepEqual(page.platforms, ['fb'])
    await assert.rejects(client.dataStatus({ limit: 0 }), ValidationError)
  })

  it('reads the metric catalogue without logging in', async () => {
    const recorder = recordingFetch()
    const catalog = await clientFor(recorder.fetch).metricCatalog()
    assert.deepEqual(recorder.calls, ['GET /catalog/metrics'])
    assert.equal(catalog.total, catalog.data.length)
    assert.deepEqual(catalog.data.slice(0, 3).map((metric) => metric.name), ['revenue', 'views', 'followers'])
  })

  it('passes include=status to /analytics/ as a list', async () => {
    const report = await clientFor().analytics({ type: 'agg', since: DATASET_START, until: '2026-01-10', include: ['status'] })
    assert.ok(report.data.every((entry) => typeof entry.accounts_reported === 'number' && entry.metrics_reported !== undefined))
  })
})
