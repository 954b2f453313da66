import type { FastifyInstance } from 'fastify'
import { METRIC_CATALOG, additivityOf, type MetricDefinition } from '../../../domain/metric-catalog.js'
import { PUBLIC_ROUTE } from '../../route-access.js'
import { MetricCatalog } from '../../schemas/catalog.schemas.js'

/**
 * GET /catalog/metrics (docs/api-reference.md "Metric catalogue"): the metric catalogue of
 * src/domain/metric-catalog.ts as JSON. **Ruling: public**, like /openapi.json: it describes the
 * API, not anyone's data, so a code generator or a sign-in page can read it without a key pair;
 * it changes only with a release, so it is built once and may be cached for 5 minutes.
 */
export async function getMetricCatalogRoute (app: FastifyInstance): Promise<void> {
  const body = JSON.stringify(catalogOf(METRIC_CATALOG))
  app.get('/catalog/metrics', {
    schema: {
      operationId: 'getMetricCatalog',
      tags: ['catalog'],
      summary: 'Every metric the reports carry: meaning, unit, platforms, how it combines, which reports',
      response: { 200: MetricCatalog },
    },
    config: { access: PUBLIC_ROUTE },
  }, async (_request, reply) => {
    reply.removeHeader('pragma')
    return await reply.header('cache-control', 'public, max-age=300').type('application/json; charset=utf-8').send(body)
  })
}

function catalogOf (metrics: readonly MetricDefinition[]): MetricCatalog {
  const data = metrics.map((metric) => ({
    name: metric.name,
    label: metric.label,
    description: metric.description,
    unit: metric.unit,
    decimals: metric.decimals,
    platforms: [...metric.platforms],
    reports: [...metric.reports],
    combine: { over_days: metric.overDays, over_accounts: metric.overAccounts },
    ratio_of: metric.ratioOf === undefined
      ? null
      : {
          numerator: metric.ratioOf.numerator,
          denominator: metric.ratioOf.denominator,
          ...(metric.ratioOf.denominatorByPlatform === undefined ? {} : { denominator_by_platform: { ...metric.ratioOf.denominatorByPlatform } }),
        },
    same_as: metric.sameAs ?? null,
    derived: !metric.reported,
    none_reported: { ...metric.noneReported },
    kind: metric.kind,
    additive: { over_days: additivityOf(metric).overDays, over_accounts: additivityOf(metric).overAccounts },
  }))
  return { data, total: data.length }
}
