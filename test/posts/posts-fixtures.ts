import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import type { PlatformCode } from '../../src/domain/platforms.js'
import type { RecordSource } from '../../src/services/import/source.js'
import type { Database, NewPostRow } from '../../src/storage/database.js'
import { accountRow, brandRow } from '../helpers/analytics-fixtures.js'
import { bearer, createPartner, loginToken } from '../helpers/partners.js'
import { openPartnerApi } from '../helpers/partner-api.js'
import type { TestStore } from '../helpers/stores.js'
import type { Dialect } from '../../src/storage/db.js'

/** An in-memory import source: the records, one per line, through the real import service. */
export function memorySource (records: unknown[]): RecordSource {
  return {
    name: 'posts.ndjson',
    read: async function * () {
      for (const [index, value] of records.entries()) yield { line: index + 1, value }
    },
  }
}

/** Posts written straight into the table (the triggers stamp revisions as for any writer). */

export type PostFields = Partial<Omit<NewPostRow, 'platform' | 'id' | 'account_id' | 'created_time' | 'updated_at'>>

/** A post with every metric null (not imported) and texts derived from its id, except what is given. */
export function postRow (platform: PlatformCode, id: string, accountId: number, createdTime: string, fields: PostFields = {}): NewPostRow {
  return {
    platform,
    id,
    account_id: accountId,
    created_time: createdTime,
    type: null,
    post_type: 'other',
    title: `Title ${id}`,
    description: null,
    permalink: `https://example.com/${platform}/${id}`,
    thumbnail_url: null,
    subjects: null,
    category: null,
    views: null,
    likes: null,
    comments: null,
    shares: null,
    interactions: null,
    reach: null,
    impressions: null,
    revenue_micros: null,
    updated_at: '2026-11-01T00:00:00Z',
    ...fields,
  }
}

export async function insertPosts (db: Kysely<Database>, posts: NewPostRow[]): Promise<void> {
  for (let start = 0; start < posts.length; start += 100) await db.insertInto('posts').values(posts.slice(start, start + 100)).execute()
}

/** Re-imports a post the way the import does: insert, or replace every column on its key. */
export async function upsertPost (db: Kysely<Database>, post: NewPostRow): Promise<void> {
  const { platform: _platform, id: _id, ...rest } = post
  await db.insertInto('posts').values(post).onConflict((conflict) => conflict.columns(['platform', 'id']).doUpdateSet(rest)).execute()
}

/**
 * Brands 1 and 2 (granted to the partner) and 3 (not granted), with accounts on every platform:
 * brand 1: fb 10, ig 11, tk 12, yt 13, li 14; brand 2: th 20, sc 21, da 22, pi 23, ig 10
 * (the same number as fb 10, on another platform); brand 3: fb 30.
 */
export async function insertPostsWorld (db: Kysely<Database>): Promise<void> {
  await db.insertInto('brands').values([brandRow(1), brandRow(2), brandRow(3)]).execute()
  await db.insertInto('accounts').values([
    accountRow('fb', 10, 1), accountRow('ig', 11, 1), accountRow('tk', 12, 1), accountRow('yt', 13, 1), accountRow('li', 14, 1),
    accountRow('th', 20, 2), accountRow('sc', 21, 2), accountRow('da', 22, 2), accountRow('pi', 23, 2), accountRow('ig', 10, 2),
    accountRow('fb', 30, 3),
  ]).execute()
}

export interface Client {
  // Response bodies are read field by field in assertions; their schema is checked by the route itself.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  get: (query?: Record<string, string>, path?: string) => Promise<{ status: number, body: any }>
}

/** A partner with brands 1 and 2, logged in; `get` calls GET /posts with a query. */
export async function postsClient (app: FastifyInstance, test: TestStore, brandIds = [1, 2]): Promise<Client> {
  const token = await loginToken(app, await createPartner(test.store, { brandIds }))
  return {
    get: async (query = {}, path = '/posts') => {
      const response = await app.inject({ method: 'GET', url: path, query, headers: bearer(token) })
      return { status: response.statusCode, body: response.json() }
    },
  }
}

/**
 * Follows next_cursor from the first page to the last, checking the paging contract on the way:
 * every page before the last holds exactly `limit` records, the last one has next_cursor null.
 * `between` runs after each page but the last (to change the store mid-walk).
 */
export async function walkPages (client: Client, query: Record<string, string>, limit: number, between?: (page: number) => Promise<void>): Promise<Array<Record<string, unknown>>> {
  const records: Array<Record<string, unknown>> = []
  let cursor: string | null = null
  for (let page = 1; page < 1000; page += 1) {
    const { status, body } = await client.get({ ...query, limit: String(limit), ...(cursor === null ? {} : { cursor }) })
    if (status !== 200) throw new Error(`page ${page}: ${status} ${JSON.stringify(body)}`)
    records.push(...body.data)
    cursor = body.next_cursor
    if (cursor === null) {
      if (body.data.length === 0 && page > 1) throw new Error(`page ${page} is empty: the previous page should have had next_cursor null`)
      return records
    }
    if (body.data.length !== limit) throw new Error(`page ${page} holds ${body.data.length} records, not ${limit}, yet has a next_cursor`)
    if (between !== undefined) await between(page)
  }
  throw new Error('the walk did not end')
}

/** `id@platform` of each record: ids are unique per platform only. */
export function keysOf (records: Array<Record<string, unknown>>): string[] {
  return records.map((record) => `${String(record.id)}@${String(record.platform)}`)
}

export interface PostsWorld {
  test: TestStore
  app: FastifyInstance
  client: Client
}

/**
 * What every /posts suite starts from (the shared openPartnerApi): a fresh store holding the
 * posts world (plus `posts`), the app on it, and a client logged in as a partner of brands 1 and 2.
 * `now` is the app's wall clock (wallClock in test/helpers/app.ts), the real one unless given.
 */
export async function openPostsWorld (dialect: Dialect, posts: NewPostRow[] = [], options: { now?: () => number } = {}): Promise<PostsWorld> {
  const api = await openPartnerApi(dialect, {
    seed: async (test) => {
      await insertPostsWorld(test.store.db)
      if (posts.length > 0) await insertPosts(test.store.db, posts)
    },
    brandIds: [1, 2],
    // The /posts suites count nothing per minute: keep the production limits on, as before.
    env: { RATE_LIMIT_PER_MINUTE: '600', RATE_LIMIT_PER_HOUR: '20000' },
    now: options.now,
  })
  return { test: api.test, app: api.app, client: { get: async (query = {}, path = '/posts') => await api.posts(query, path) } }
}

export async function closePostsWorld (world: PostsWorld): Promise<void> {
  await world.app.close()
  await world.test.cleanup()
}
