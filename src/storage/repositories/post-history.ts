import { POST_HISTORY_RETENTION_SECONDS } from '../../domain/posts.js'

/**
 * Replaced post versions superseded before this instant can no longer be read by any /posts walk
 * (cursors expire after a day), so each import prunes them inside its own transaction: the
 * history stays about one day deep however many imports run.
 */
export function postHistoryCutoff (now: string): string {
  return new Date(Date.parse(now) - POST_HISTORY_RETENTION_SECONDS * 1000).toISOString()
}
