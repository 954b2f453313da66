import type { components, paths } from './generated/openapi.js'

/**
 * Request and response types of the client, all taken from the types generated from the service's
 * OpenAPI document (src/generated/openapi.ts): a change of the contract breaks the build here.
 */

type Schemas = components['schemas']
type QueryOf<Operation> = Operation extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never

export type TokenResponse = Schemas['Token']
export type HealthResponse = Schemas['Health']
export type MeResponse = Schemas['Me']
export type Brand = Schemas['Brand']
export type DailyReport = Schemas['DailyReport']
export type MonthlyReport = Schemas['MonthlyReport']
export type AggReport = Schemas['AggReport']
export type AnalyticsResponse = DailyReport | MonthlyReport | AggReport
export type DailyEntry = Schemas['DailyEntry']
export type MonthlyEntry = Schemas['MonthlyEntry']
export type AggEntry = Schemas['AggEntry']
export type AnalyticsEntry = DailyEntry | MonthlyEntry | AggEntry
export type PostsResponse = Schemas['PostsPage']
export type Post = Schemas['Post']
export type DataStatusPage = Schemas['DataStatusPage']
export type AccountStatus = Schemas['AccountStatus']
export type DateRange = Schemas['DateRange']
export type MetricCounts = Schemas['MetricCounts']
export type MetricCatalog = Schemas['MetricCatalog']
export type MetricDescription = Schemas['MetricDescription']
/** A page of the change feed (GET /changes): `next_cursor` is always there, to store. */
export type ChangesPage = Schemas['ChangesPage']
/** One change event; narrow on `type` to read its `data`. */
export type ChangeEvent = Schemas['ChangeEvent']
export type ChangeEventType = ChangeEvent['type']

export type Webhook = Schemas['Webhook']
export type WebhookWithSecret = Schemas['WebhookWithSecret']
export type WebhookList = Schemas['WebhookList']
export type WebhookDelivery = Schemas['Delivery']
export type WebhookDeliveryAttempt = Schemas['DeliveryAttempt']
export type WebhookDeliveryPage = Schemas['DeliveryPage']

export type ExportJob = Schemas['ExportJob']
export type ExportStatus = ExportJob['status']
export type ExportList = Schemas['ExportList']
export type ExportFile = Schemas['ExportFile']
export type ExportColumn = Schemas['ExportColumn']
export type ExportManifest = Schemas['ExportManifest']

/** GET /me parameters. */
export type MeQuery = QueryOf<paths['/me']['get']>
/** GET /analytics/ parameters; list parameters are arrays, sent comma-separated. */
export type AnalyticsQuery = QueryOf<paths['/analytics/']['get']>
/** GET /posts parameters. */
export type PostsQuery = QueryOf<paths['/posts']['get']>
/** GET /data-status parameters. */
export type DataStatusQuery = QueryOf<paths['/data-status']['get']>
/** GET /changes parameters (`type` and `brand_id` are arrays, sent comma-separated). */
export type ChangesQuery = QueryOf<paths['/changes']['get']>
/** The report a query's `type` selects. */
export type ReportOf<Q extends AnalyticsQuery> = Q['type'] extends 'monthly' ? MonthlyReport : Q['type'] extends 'agg' ? AggReport : Q['type'] extends 'daily' ? DailyReport : AnalyticsResponse
/** POST /reports body (docs/reports.md). */
export type ReportRequest = NonNullable<paths['/reports']['post']['requestBody']>['content']['application/json']
/** A page of a report; `next_cursor` when more rows exist. */
export type ReportResponse = Schemas['ReportResponse']
/** One row of a report: its dimensions' values, `metrics`, and with a comparison its `comparison`. */
export type ReportRow = Schemas['ReportRow']
/** POST /webhooks body. */
export type CreateWebhookBody = NonNullable<paths['/webhooks']['post']['requestBody']>['content']['application/json']
/** PATCH /webhooks/{id} body. */
export type UpdateWebhookBody = NonNullable<paths['/webhooks/{id}']['patch']['requestBody']>['content']['application/json']
/** GET /webhooks/{id}/deliveries parameters. */
export type WebhookDeliveriesQuery = QueryOf<paths['/webhooks/{id}/deliveries']['get']>
/** POST /exports body. */
export type CreateExportBody = NonNullable<paths['/exports']['post']['requestBody']>['content']['application/json']
/** GET /exports parameters. */
export type ExportsQuery = QueryOf<paths['/exports']['get']>
