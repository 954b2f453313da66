import { describe, it, before, after } from 'node:test'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'

const DATASET = generateDataset({ seed: 20261121, start: '2026-01-20', days: 75 })
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`smoke ${dialect}`, () => {
    let api: PartnerApi
    before(async () => { api = await openPartnerApi(dialect, { seed: async (t) => { await insertDatasetAndReadModel(t.store, DATASET) }, brandIds: [1, 2, 3] }) })
    after(async () => { await api.close() })
    it('answers', async () => {
      const r = await api.app.inject({ method: 'POST', url: '/reports', headers: api.auth, payload: { metrics: ['views', 'followers', 'engagement_rate', 'revenue', 'posts_per_day', 'reach'], dimensions: ['week', 'platform'], since: '2026-01-20', until: '2026-02-20', include: ['totals', 'status'], comparison: 'previous_period', limit: 3, order_by: [{ metric: 'views', desc: true }] } })
      console.log(r.statusCode, r.body.slice(0, 3000))
      const g = await api.app.inject({ method: 'GET', url: '/reports?metrics=views&metrics=followers&dimensions=quarter,brand&since=2025-12-01&until=2026-04-30&order_by=-views', headers: api.auth })
      console.log(g.statusCode, g.body.slice(0, 2000))
      const e = await api.app.inject({ method: 'POST', url: '/reports', headers: api.auth, payload: { metrics: ['nope'], dimensions: ['week', 'month'] } })
      console.log(e.statusCode, e.body.slice(0, 2000))
    })
  })
}
