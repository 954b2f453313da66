import { eventIdOf } from '../domain/changes.js'
import type { ChangeCounts, Sync } from '../domain/syncs.js'
import { countOf } from '../domain/plural.js'
import { describeRecordCounts } from './counts.js'

/**
 * How the CLI shows a sync (`imports list`, `imports show`, the import's summary): the `--json`
 * objects (snake_case, like the API) and the human lines. docs/import.md "Syncs" documents both.
 */

/** Its events' ids, or nulls when it emitted none. */
function eventsJson (sync: Sync): { count: number, first_id: string | null, last_id: string | null } {
  const first = sync.firstEventNumber
  return {
    count: sync.eventCount,
    first_id: first === null ? null : eventIdOf(first),
    last_id: first === null ? null : eventIdOf(first + sync.eventCount - 1),
  }
}

/** A sync in a list: everything but its brand and account lists (`imports show` has them). */
export function syncSummaryJson (sync: Sync): Record<string, unknown> {
  return {
    sync_id: sync.syncId,
    started_at: sync.startedAt,
    committed_at: sync.committedAt,
    source_files: sync.sourceFiles,
    counts: sync.counts,
    events: eventsJson(sync),
  }
}

export function syncJson (sync: Sync): Record<string, unknown> {
  return { ...syncSummaryJson(sync), brand_ids: sync.brandIds, accounts: sync.accounts }
}

/** "2 daily rows inserted, 1 post changed", or "no changes". */
export function describeChanges (changed: ChangeCounts): string {
  const parts = [
    [changed.brand.created, 'brand', 'created'], [changed.brand.renamed, 'brand', 'renamed'],
    [changed.account.created, 'account', 'created'], [changed.account.updated, 'account', 'updated'], [changed.account.moved, 'account', 'moved'],
    [changed.daily.inserted, 'daily row', 'inserted'], [changed.daily.changed, 'daily row', 'changed'],
    [changed.post.added, 'post', 'added'], [changed.post.changed, 'post', 'changed'],
  ] as const
  const said = parts.filter(([count]) => count > 0).map(([count, noun, verb]) => `${countOf(count, noun)} ${verb}`)
  return said.length === 0 ? 'no changes' : said.join(', ')
}

function describeEvents (sync: Sync): string {
  const events = eventsJson(sync)
  if (events.first_id === null) return 'no events'
  return events.count === 1 ? `1 event (${events.first_id})` : `${events.count} events (${events.first_id} to ${events.last_id ?? ''})`
}

/** One line of `imports list`. */
export function syncLine (sync: Sync): string {
  return `sync ${sync.syncId}  ${sync.committedAt}  ${describeChanges(sync.counts.changed)}; ${describeEvents(sync)}  [${sync.sourceFiles.join(', ')}]`
}

/** Accounts shown by `imports show` without --json; the rest are counted (--json lists them all). */
const ACCOUNTS_SHOWN = 50

/** The lines of `imports show`. */
export function syncLines (sync: Sync): string[] {
  const accounts = sync.accounts.slice(0, ACCOUNTS_SHOWN).map((account) => `${account.platform}:${account.account_id}`)
  const more = sync.accounts.length - accounts.length
  return [
    `sync ${sync.syncId}`,
    `  started    ${sync.startedAt}`,
    `  committed  ${sync.committedAt}`,
    `  sources    ${sync.sourceFiles.join(', ')}`,
    `  read       ${describeRecordCounts(sync.counts.read)}`,
    `  changed    ${describeChanges(sync.counts.changed)}`,
    `  events     ${describeEvents(sync)}`,
    `  brands     ${sync.brandIds.length === 0 ? '-' : sync.brandIds.join(', ')}`,
    `  accounts   ${accounts.length === 0 ? '-' : accounts.join(', ')}${more > 0 ? ` and ${more} more (--json lists them all)` : ''}`,
  ]
}
