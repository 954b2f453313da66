import type { AccountStatus, AnalyticsQuery, AggReport, DataStatusQuery, PostsQuery, PostsResponse, ReportRequest, ReportResponse } from '../../../packages/client/src/types.js'
import { loadAgg, loadDataStatus, loadPosts, loadReport, loadSeriesEntries, type SeriesData } from '../api/loaders.js'
import type { EntryStatus } from '../model/status.js'
import { useSession } from './session-context.js'
import { useLoad, type LoadState } from './use-load.js'

/** The views' loads, each keyed by its query (and the Refresh revision) in the session cache. */

const keyOf = (kind: string, query: object, revision: number) => `${kind}:${revision}:${JSON.stringify(query)}`

export function useAgg (query: AnalyticsQuery, revision: number): LoadState<AggReport & { statuses: Array<EntryStatus | undefined> }> {
  const { session } = useSession()
  return useLoad(keyOf('agg', query, revision), async () => await loadAgg(session.client, query))
}

export function useSeries (query: AnalyticsQuery, revision: number): LoadState<SeriesData> {
  const { session } = useSession()
  return useLoad(keyOf('series', query, revision), async (report, isAbandoned) => await loadSeriesEntries(session.client, query, report, isAbandoned))
}

export function usePosts (query: PostsQuery, revision: number): LoadState<PostsResponse> {
  const { session } = useSession()
  return useLoad(keyOf('posts', query, revision), async () => await loadPosts(session.client, query))
}

export function useDataStatus (query: Omit<DataStatusQuery, 'cursor' | 'limit'>, revision: number): LoadState<AccountStatus[]> {
  const { session } = useSession()
  return useLoad(keyOf('data-status', query, revision), async () => await loadDataStatus(session.client, query))
}

export function useReport (request: ReportRequest, revision: number): LoadState<ReportResponse> {
  const { session } = useSession()
  return useLoad(keyOf('report', request, revision), async () => await loadReport(session.client, request))
}
