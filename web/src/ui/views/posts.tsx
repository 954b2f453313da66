import { useState } from 'preact/hooks'
import { ORDER_BY, POST_LIMITS, type OrderBy } from '../../model/filters.js'
import { formatDecimal2, formatInteger, formatRatioAsPercent } from '../../model/format.js'
import { platformName, POST_TYPES, type PostType } from '../../model/platforms.js'
import { postsExportArgs, postsQuery } from '../../model/queries.js'
import { DownloadCsv } from '../download-csv.js'
import { usePosts } from '../loads.js'
import { MetricCell } from '../metric-cell.js'
import { metricDescription, metricLabel } from '../../model/catalog.js'
import { Empty, Loading, ProblemNotice } from '../notices.js'
import { useSession } from '../session-context.js'
import type { ViewProps } from '../view-props.js'

/**
 * The period's top posts by the chosen order, a page of GET /posts at a time (10, 25 or 50):
 * **Next page** follows the API's next_cursor, **Previous page** goes back through the cursors
 * that led here (kept in memory: a cursor is bound to its query, so a change of filters starts again
 * at the first page, and a shared link always opens it).
 */

const ORDER_LABELS: Record<OrderBy, string> = {
  created_time: 'Newest',
  views: 'Views',
  interactions: 'Interactions',
  engagement_rate: 'Engagement rate',
  reach: 'Reach',
  revenue: 'Revenue',
}

/** The metric columns, labelled from the catalogue (a post carries them under the same names). */
const POST_METRICS: Array<{ field: string, format: (value: unknown) => string }> = [
  { field: 'views', format: formatInteger },
  { field: 'interactions', format: formatInteger },
  { field: 'engagement_rate', format: formatRatioAsPercent },
  { field: 'reach', format: formatInteger },
  { field: 'revenue', format: formatDecimal2 },
]

export function PostsView ({ filters, period, navigate, revision }: ViewProps) {
  const { session } = useSession()
  const query = postsQuery(filters, period)
  // The cursors of the pages before this one, for the query they belong to.
  const queryKey = JSON.stringify(query)
  const [trail, setTrail] = useState<{ key: string, cursors: Array<string | undefined> }>({ key: queryKey, cursors: [] })
  const cursors = trail.key === queryKey ? trail.cursors : []
  const cursor = cursors.at(-1)
  const state = usePosts(cursor === undefined ? query : { ...query, cursor }, revision)
  const first = cursors.length * filters.limit + 1
  const goNext = (next: string) => setTrail({ key: queryKey, cursors: [...cursors, next] })
  const goBack = () => setTrail({ key: queryKey, cursors: cursors.slice(0, -1) })
  return (
    <section class='panel' aria-labelledby='posts-title'>
      <div class='panel-head'>
        <h2 id='posts-title'>Top posts</h2>
        {state.status === 'done' && (
          <DownloadCsv
            rows={state.value.data}
            filename={`posts-${period.since}-${period.until}.csv`}
            exportArgs={postsExportArgs(query)}
            note={cursors.length > 0 ? `These rows (${first}–${first + state.value.data.length - 1}) are part of the file written by` : state.value.next_cursor === null ? 'The same file as' : 'These rows start the file written by'}
          />
        )}
      </div>
      <div class='pickers'>
        <label for='order-by'>Order by</label>
        <select id='order-by' value={filters.orderBy} onChange={(event) => navigate({ ...filters, orderBy: event.currentTarget.value as OrderBy })}>
          {ORDER_BY.map((value) => <option key={value} value={value}>{ORDER_LABELS[value]}</option>)}
        </select>
        <label for='post-type'>Post type</label>
        <select id='post-type' value={filters.postType} onChange={(event) => navigate({ ...filters, postType: event.currentTarget.value as PostType | '' })}>
          <option value=''>All types</option>
          {POST_TYPES.map((value) => <option key={value} value={value}>{value}</option>)}
        </select>
        <label for='post-limit'>Show</label>
        <select id='post-limit' value={String(filters.limit)} onChange={(event) => navigate({ ...filters, limit: Number(event.currentTarget.value) })}>
          {POST_LIMITS.map((value) => <option key={value} value={String(value)}>{value} posts</option>)}
        </select>
      </div>
      {state.status === 'loading' && <Loading label='Loading posts' />}
      {state.status === 'error' && <ProblemNotice problem={state.problem} />}
      {state.status === 'done' && state.value.data.length === 0 && <Empty period={period} what='posts' />}
      {state.status === 'done' && state.value.data.length > 0 && (
        <>
          <p class='hint' data-posts-count>
            {cursors.length === 0
              ? state.value.next_cursor === null
                ? `All ${state.value.data.length} matching posts.`
                : `The top ${state.value.data.length}; more posts match.`
              : `Posts ${first}–${first + state.value.data.length - 1}${state.value.next_cursor === null ? ', the last of the matching posts.' : '; more posts match.'}`}
          </p>
          <div class='table-scroll' tabIndex={0} role='region' aria-label='Posts table'>
            <table class='data' data-posts-table>
              <caption>Posts published {period.since} – {period.until}, by {ORDER_LABELS[filters.orderBy].toLowerCase()}, highest first{cursors.length > 0 ? `, from number ${first}` : ''}</caption>
              <thead>
                <tr>
                  <th scope='col'>Post</th><th scope='col' class='text'>Published (UTC)</th><th scope='col' class='text'>Platform</th><th scope='col' class='text'>Account</th><th scope='col' class='text'>Type</th>
                  {POST_METRICS.map(({ field }) => <th key={field} scope='col' title={metricDescription(session.metrics, field)}>{metricLabel(session.metrics, field)}</th>)}
                </tr>
              </thead>
              <tbody>
                {(state.value.data as Array<Record<string, unknown>>).map((post) => (
                  <tr key={`${String(post.platform)}:${String(post.id)}`} data-post={String(post.id)}>
                    <th scope='row' class='post-title'>
                      {typeof post.permalink === 'string' && post.permalink !== ''
                        ? <a href={post.permalink} rel='noopener noreferrer' target='_blank'>{postTitle(post)}<span class='visually-hidden'> (opens the post on its platform)</span></a>
                        : postTitle(post)}
                    </th>
                    {/* Date and time may wrap onto two lines, so the table fits at 1440 px. */}
                    <td class='text'>{String(post.created_time ?? '').replace('T', ' ').replace(/:00Z$|Z$/, '')}</td>
                    <td class='text'>{platformName(String(post.platform))}</td>
                    <td class='text'>{String(post.account_name ?? '')}</td>
                    <td class='text'>{String(post.post_type ?? '')}</td>
                    {POST_METRICS.map(({ field, format }) => <MetricCell key={field} row={post} field={field} format={format} />)}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {(cursors.length > 0 || state.value.next_cursor !== null) && (
            <nav class='pager' aria-label='Pages of posts'>
              {cursors.length > 0 && <button type='button' onClick={goBack} data-page='previous'>Previous page</button>}
              {state.value.next_cursor !== null && <button type='button' onClick={() => { if (state.value.next_cursor !== null) goNext(state.value.next_cursor) }} data-page='next'>Next page</button>}
            </nav>
          )}
        </>
      )}
    </section>
  )
}

function postTitle (post: Record<string, unknown>): string {
  const text = typeof post.title === 'string' && post.title.trim() !== '' ? post.title : typeof post.description === 'string' ? post.description : ''
  const short = text.length > 80 ? `${text.slice(0, 77)}…` : text
  return short === '' ? `Post ${String(post.id)}` : short
}
