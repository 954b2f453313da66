import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { CursorExpiredError } from '../../../packages/client/src/errors.js'
import type { ChangeEvent } from '../../../packages/client/src/types.js'
import { brandsText, MAX_PAGES_PER_POLL, POLL_INTERVAL_MS, summariseChanges, WATCHED_TYPES, type NewData } from '../model/changes.js'
import { useSession } from './session-context.js'

/**
 * Follows the change feed while the page is visible: a cursor at the feed's head when the page
 * opens (and after each Refresh), then a poll every 30 s, on every change of view or filters, and
 * on coming back to the tab. When an import changed the partner's analytics or posts, a banner
 * says which brands and offers **Refresh**. A failed poll is tried again at the next one: the
 * views show their own errors.
 */
export function ChangesBanner ({ watch, onRefresh }: { watch: unknown, onRefresh: () => void }) {
  const { session } = useSession()
  const [news, setNews] = useState<NewData | null>(null)
  const cursor = useRef<string | null>(null)
  const busy = useRef(false)
  const names = useMemo(() => new Map(session.profile.brands.map((brand) => [brand.brand_id, brand.brand_name])), [session])

  const poll = useMemo(() => async () => {
    if (busy.current || document.visibilityState !== 'visible') return
    busy.current = true
    try {
      if (cursor.current === null) {
        cursor.current = (await session.client.changes({ start: 'latest', type: [...WATCHED_TYPES] })).next_cursor
        return
      }
      const events: ChangeEvent[] = []
      for (let pages = 0; pages < MAX_PAGES_PER_POLL; pages++) {
        const page = await session.client.changes({ cursor: cursor.current, type: [...WATCHED_TYPES], limit: 100 })
        events.push(...page.data)
        cursor.current = page.next_cursor
        if (!page.has_more) break
      }
      if (events.length > 0) setNews((before) => summariseChanges(events, before))
    } catch (error) {
      // Events were dropped before this page read them: something changed, say so, start again at the head.
      if (error instanceof CursorExpiredError) {
        cursor.current = null
        setNews((before) => before ?? { events: 0, brandIds: [], syncIds: [], latest: null })
      }
    } finally {
      busy.current = false
    }
  }, [session])

  // poll() catches its own failures; the catch here only keeps a floating promise from going unhandled.
  const run = () => { poll().catch(() => undefined) }
  useEffect(run, [watch, poll])
  useEffect(() => {
    const timer = setInterval(run, POLL_INTERVAL_MS)
    const onVisible = () => { if (document.visibilityState === 'visible') run() }
    document.addEventListener('visibilitychange', onVisible)
    return () => {
      clearInterval(timer)
      document.removeEventListener('visibilitychange', onVisible)
    }
  }, [poll])

  const refresh = () => {
    setNews(null)
    onRefresh()
  }
  return (
    <div class='changes-slot' role='status'>
      {news !== null && (
        <div class='banner banner-changes' data-new-data={news.events}>
          <p>
            <strong>New data has arrived</strong>{' '}
            {news.events === 0
              ? 'since this page loaded (the change feed was reset).'
              : <>for {brandsText(news.brandIds, names)} since this page loaded{news.syncIds.length > 0 && <> (import {news.syncIds.join(', ')}{news.latest !== null && <>, <time dateTime={news.latest}>{news.latest.replace('T', ' ').replace('Z', ' UTC')}</time></>})</>}: the figures shown do not include it yet.</>}
          </p>
          <button type='button' class='primary' onClick={refresh}>Refresh to see it</button>
        </div>
      )}
    </div>
  )
}
