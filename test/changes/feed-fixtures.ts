import type { Kysely } from 'kysely'
import type { NewChangeEvent } from '../../src/domain/changes.js'
import { insertEvents, recordEvents, takeChangeNumbers } from '../../src/storage/changes/change-log.repository.js'
import type { Database } from '../../src/storage/database.js'
import { readsPerBrand } from '../../src/services/changes/changes.service.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'

/**
 * Change events written through the change log's own storage API, as the import and the users
 * service write them (src/storage/changes/change-log.repository.ts), plus the model of what was
 * written that the tests compute their expectations from.
 */

/** An event as a test expects to read it from GET /changes. */
export interface WrittenEvent {
  id: string
  type: string
  created_at: string
  sync_id: number | null
  data: Record<string, unknown>
  /** Not on the wire: who may see it. */
  brandId: number
  userId: string | null
}

/** What GET /changes shows of a written event. */
export function wire (event: WrittenEvent): Record<string, unknown> {
  return { id: event.id, type: event.type, created_at: event.created_at, sync_id: event.sync_id, data: event.data }
}

/** One sync's events, numbered as an import numbers them (a sync id and the next numbers, taken last). */
export async function recordSync (db: Kysely<Database>, events: NewChangeEvent[], createdAt: string): Promise<WrittenEvent[]> {
  return await db.transaction().execute(async (trx) => {
    const numbers = await takeChangeNumbers(trx, { sync: true, eventCount: events.length })
    await insertEvents(trx, { ...numbers, createdAt }, events)
    return events.map((event, index) => written(event, numbers.firstEventId + index, numbers.syncId, createdAt))
  })
}

/** Events without a sync (access changes), as `users grant/revoke` records them. */
export async function recordUnsynced (db: Kysely<Database>, events: NewChangeEvent[], createdAt: string): Promise<WrittenEvent[]> {
  const before = await db.selectFrom('change_clock').select('last_event_id').executeTakeFirstOrThrow()
  await recordEvents(db, events, createdAt)
  return events.map((event, index) => written(event, Number(before.last_event_id) + 1 + index, null, createdAt))
}

function written (event: NewChangeEvent, number: number, syncId: number | null, createdAt: string): WrittenEvent {
  return {
    id: `evt_${number}`,
    type: event.type,
    created_at: createdAt,
    sync_id: syncId,
    data: event.data as unknown as Record<string, unknown>,
    brandId: event.data.brand_id,
    userId: event.userId ?? null,
  }
}

/** A varied event about a brand: the i-th of a cycle through the import's four types. */
export function importEvent (brandId: number, i: number): NewChangeEvent {
  switch (i % 4) {
    case 0: return { type: 'analytics.updated', data: { brand_id: brandId, accounts: [{ platform: 'fb', account_id: brandId * 1000, dates: [{ since: '2026-11-01', until: '2026-11-03' }, { since: '2026-11-05', until: '2026-11-05' }] }] } }
    case 1: return { type: 'posts.updated', data: { brand_id: brandId, accounts: [{ platform: 'ig', account_id: brandId * 1000 + 1, posts_added: i, posts_changed: 1 }] } }
    case 2: return { type: 'brand.updated', data: { brand_id: brandId, brand_name: `Brand "${brandId}" — № ${i}`, change: 'renamed' } }
    default: return { type: 'account.updated', data: { brand_id: brandId, platform: 'tk', account_id: brandId * 1000 + 2, account_name: `Account ${i} ✓`, change: 'updated' } }
  }
}

/** `count` syncs of `perSync` events each, over brands cycling through `brandIds`. */
export async function recordSyncs (db: Kysely<Database>, options: { count: number, perSync: number, brandIds: number[], createdAt: string }): Promise<WrittenEvent[]> {
  const all: WrittenEvent[] = []
  let i = 0
  for (let sync = 0; sync < options.count; sync++) {
    const events = Array.from({ length: options.perSync }, () => {
      const brandId = options.brandIds[i % options.brandIds.length] as number
      return importEvent(brandId, i++)
    })
    all.push(...await recordSync(db, events, options.createdAt))
  }
  return all
}

/** The events a user granted `brandIds` sees: those of its brands and the access events addressed to it. */
export function visibleTo (events: WrittenEvent[], userId: string, brandIds: number[]): WrittenEvent[] {
  return events.filter((event) => event.userId === null ? brandIds.includes(event.brandId) : event.userId === userId)
}

/** A GET /changes body as the tests read it (the schema's static type leaves each event `unknown`). */
export interface FeedPageBody {
  data: Array<{ id: string, type: string, created_at: string, sync_id: number | null, data: Record<string, unknown> & { brand_id: number } }>
  has_more: boolean
  next_cursor: string
}

/**
 * A page reads a user's events by one index seek per brand when it has few brands and a small
 * share of them (PER_BRAND_MAX, PER_BRAND_SHARE), by a walk of the log otherwise
 * (src/services/changes/changes.service.ts). Tests run both ways: the store holds brands without
 * events (EXTRA_BRANDS, seedExtraBrands) so that a few brands are a small share, and for `walk`
 * the partner is granted EXTRA_BRANDS besides the brands under test: what it sees is the same,
 * only the statement differs.
 */
export const STRATEGIES = ['brands', 'walk'] as const
export type Strategy = (typeof STRATEGIES)[number]
export const EXTRA_BRANDS = Array.from({ length: 21 }, (_, i) => 101 + i)
/** Brands nobody is granted: with EXTRA_BRANDS, a store of at least 121 brands. */
const IDLE_BRANDS = Array.from({ length: 100 }, (_, i) => 201 + i)

/** The brands without events every strategy test needs in its store. */
export async function seedExtraBrands (db: Kysely<Database>): Promise<void> {
  await insertBrandsWithAccounts(db, [...EXTRA_BRANDS, ...IDLE_BRANDS].map((brandId) => ({ brand_id: brandId })))
}

/**
 * The grants that make a page of a partner holding `brandIds` read the log as `strategy` says, in
 * a store holding `storeBrands` brands besides those of seedExtraBrands (checked against the
 * service's own rule, so a change of the rule cannot leave a suite testing the other strategy).
 */
export function grantsFor (strategy: Strategy, brandIds: number[], storeBrands = 6): number[] {
  const grants = strategy === 'walk' ? [...brandIds, ...EXTRA_BRANDS] : brandIds
  const total = storeBrands + EXTRA_BRANDS.length + IDLE_BRANDS.length
  // With up to two more brands granted later in a test.
  for (const extra of [0, 1, 2]) {
    if (readsPerBrand(grants.length + extra, total) !== (strategy === 'brands')) throw new Error(`${grants.length + extra} of ${total} brands do not read as ${strategy}`)
  }
  return grants
}
