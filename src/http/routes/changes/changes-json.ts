import type { FeedPage } from '../../../domain/change-feed.js'

/**
 * A /changes page's body (the ChangesPage schema), written around events that are JSON already
 * (each rendered once by renderChangeEvent, the rendering the webhooks send too). Members in the
 * schema's order; test/changes/changes-page-text.test.ts holds this text to what the ChangesPage
 * serializer writes for the same page.
 */
export function changesPageJson (page: FeedPage, nextCursor: string): string {
  return `{"data":[${page.eventsJson.join(',')}],"has_more":${page.hasMore ? 'true' : 'false'},"next_cursor":${JSON.stringify(nextCursor)}}`
}
