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

/** GET /me parameters. */
export type MeQuery = QueryOf<paths['/me']['get']>
/** GET /analytics/ parameters; list parameters are arrays, sent comma-separated. */
export type AnalyticsQuery = QueryOf<paths['/analytics/']['get']>
/** GET /posts parameters. */
export type PostsQuery = QueryOf<paths['/posts']['get']>
/** The report a query's `type` selects. */
export type ReportOf<Q extends AnalyticsQuery> = Q['type'] extends 'monthly' ? MonthlyReport : Q['type'] extends 'agg' ? AggReport : Q['type'] extends 'daily' ? DailyReport : AnalyticsResponse
