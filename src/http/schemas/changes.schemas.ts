import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { CHANGE_EVENT_TYPES, MAX_POST_IDS_PER_ACCOUNT } from '../../domain/changes.js'
import { PLATFORM_CODES } from '../../domain/platforms.js'
import { component } from './components.js'
import { DateRange } from './formats.js'
import { CursorParam, IdListParam, StringEnum } from './params.schemas.js'

/**
 * The change feed's events as the wire shows them (docs/api-reference.md "Change feed"): the same
 * objects in GET /changes and in webhook bodies (src/domain/changes.ts renders both). Each type's
 * `data` is a named schema, so the OpenAPI document describes every payload.
 */

const Platform = Type.Union(PLATFORM_CODES.map((code) => Type.Literal(code)), { description: 'Platform code' })

export const AnalyticsUpdatedData = component('AnalyticsUpdatedData', Type.Object({
  brand_id: Type.Integer(),
  accounts: Type.Array(Type.Object({
    platform: Platform,
    account_id: Type.Integer(),
    dates: Type.Array(DateRange, { description: 'The days whose daily rows the sync inserted or changed, as ascending inclusive ranges' }),
  }), { description: 'Accounts in canonical order: platform, then account_id' }),
}))

export const PostsUpdatedData = component('PostsUpdatedData', Type.Object({
  brand_id: Type.Integer(),
  accounts: Type.Array(Type.Object({
    platform: Platform,
    account_id: Type.Integer(),
    posts_added: Type.Integer({ minimum: 0 }),
    posts_changed: Type.Integer({ minimum: 0 }),
    added_post_ids: Type.Optional(Type.Array(Type.String(), {
      maxItems: MAX_POST_IDS_PER_ACCOUNT,
      description: `The ids (as GET /posts shows them) of the posts added, ascending by their UTF-8 bytes, at most ${MAX_POST_IDS_PER_ACCOUNT}. Absent on events recorded before the feed listed ids: read that as truncated`,
    })),
    changed_post_ids: Type.Optional(Type.Array(Type.String(), {
      maxItems: MAX_POST_IDS_PER_ACCOUNT,
      description: `The ids of the posts changed, in the same order, at most ${MAX_POST_IDS_PER_ACCOUNT}`,
    })),
    post_ids_truncated: Type.Optional(Type.Boolean({
      description: 'true when either list leaves posts out (more than the bound were added or changed): re-read the account\'s posts',
    })),
  }), { description: 'Accounts in canonical order: platform, then account_id' }),
}))

export const BrandUpdatedData = component('BrandUpdatedData', Type.Object({
  brand_id: Type.Integer(),
  brand_name: Type.String(),
  change: Type.Union([Type.Literal('created'), Type.Literal('renamed')]),
}))

export const AccountUpdatedData = component('AccountUpdatedData', Type.Object({
  brand_id: Type.Integer({ description: 'The brand the event is about; for moved_out, the brand the account left' }),
  platform: Platform,
  account_id: Type.Integer(),
  account_name: Type.String(),
  change: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('moved_in'), Type.Literal('moved_out')], {
    description: 'updated: its name, network id, avatar or permalink changed',
  }),
}))

export const AccessChangedData = component('AccessChangedData', Type.Object({
  brand_id: Type.Integer({ description: 'The brand the caller gained or lost' }),
}))

const DATA_BY_TYPE: Record<(typeof CHANGE_EVENT_TYPES)[number], TSchema> = {
  'analytics.updated': AnalyticsUpdatedData,
  'posts.updated': PostsUpdatedData,
  'brand.updated': BrandUpdatedData,
  'account.updated': AccountUpdatedData,
  'access.granted': AccessChangedData,
  'access.revoked': AccessChangedData,
}

/** One event schema per type, named after it (AnalyticsUpdatedEvent, …). */
function eventSchema (type: (typeof CHANGE_EVENT_TYPES)[number]): TSchema {
  const name = type.split(/[._]/).map((part) => part[0]?.toUpperCase() + part.slice(1)).join('') + 'Event'
  return component(name, Type.Object({
    id: Type.String({ description: '`evt_` + a number; ids increase in commit order. Webhook deliveries carry it as webhook-id: dedupe by it' }),
    type: Type.Literal(type),
    created_at: Type.String({ format: 'date-time', description: 'When the change was recorded (UTC, to the second)' }),
    sync_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The import that caused it; null for access events' }),
    data: DATA_BY_TYPE[type],
  }))
}

export const CHANGE_EVENT_SCHEMAS = CHANGE_EVENT_TYPES.map(eventSchema)

export const ChangeEvent = component('ChangeEvent', Type.Union(CHANGE_EVENT_SCHEMAS, { description: 'One change; `type` tells which' }))

/** GET /changes: the query and the page (docs/api-reference.md "Change feed"). */

export const CHANGES_DEFAULT_LIMIT = 50
export const CHANGES_MAX_LIMIT = 100

export const ChangesQuery = Type.Object({
  cursor: Type.Optional(CursorParam('next_cursor of a previous page; valid with the same brand_id and type only')),
  limit: Type.Integer({ minimum: 1, maximum: CHANGES_MAX_LIMIT, default: CHANGES_DEFAULT_LIMIT, description: `Events per page, 1 to ${CHANGES_MAX_LIMIT}` }),
  brand_id: Type.Optional(IdListParam('Only events of these brands; every one must be accessible')),
  type: Type.Optional(Type.Array(StringEnum(CHANGE_EVENT_TYPES, { title: 'event type', description: `use ${CHANGE_EVENT_TYPES.join(', ')}` }), {
    description: `Only events of these types, comma-separated: ${CHANGE_EVENT_TYPES.join(', ')}`,
    examples: [['analytics.updated', 'access.revoked']],
  })),
  start: Type.Optional(StringEnum(['latest'] as const, {
    description: '`latest`: an empty page whose next_cursor points at the newest event (start following after a full read). Not with cursor',
  })),
})
export type ChangesQuery = Static<typeof ChangesQuery>

export const ChangesPage = component('ChangesPage', Type.Object({
  data: Type.Array(ChangeEvent, { description: 'Events in commit order (ascending id), at most limit' }),
  has_more: Type.Boolean({ description: 'true: more events can be read now; call again at once with next_cursor (a page may be short, even empty, while true)' }),
  next_cursor: Type.String({ description: 'Always present: store it and pass it as cursor on the next call, now or later' }),
}))
export type ChangesPage = Static<typeof ChangesPage>
export const WebhookTestData = component('WebhookTestData', Type.Object({
  webhook_id: Type.String({ description: 'The webhook the test was sent to' }),
}))

/** webhook.test: sent by POST /webhooks/{id}/test, never in the change feed. */
export const WebhookTestEvent = component('WebhookTestEvent', Type.Object({
  id: Type.String({ description: '`evt_` + a number, unique like every event id' }),
  type: Type.Literal('webhook.test'),
  created_at: Type.String({ format: 'date-time' }),
  sync_id: Type.Null(),
  data: WebhookTestData,
}))

export const ExportCompletedData = component('ExportCompletedData', Type.Object({
  export_id: Type.String({ description: 'The job that succeeded, `exp_…`' }),
  dataset: Type.String({ description: 'daily, posts or accounts' }),
  format: Type.String({ description: 'parquet, csv or ndjson' }),
  compression: Type.String({ description: 'zstd, snappy, gzip or none' }),
  rows: Type.Integer({ minimum: 0, description: 'Rows in all the files, as the manifest\'s rows' }),
  file_count: Type.Integer({ minimum: 0, description: 'Files the manifest lists (0 for an export without rows)' }),
  manifest_url: Type.String({ description: 'The manifest\'s path, `/exports/{id}/manifest`' }),
  changes_cursor: Type.String({ description: 'The manifest\'s change-feed cursor: GET /changes?cursor=… yields exactly the changes the files do not hold' }),
}))

/** export.completed: one of the partner's export jobs succeeded; sent to its webhooks only, never in the change feed. */
export const ExportCompletedEvent = component('ExportCompletedEvent', Type.Object({
  id: Type.String({ description: '`evt_` + a number, unique like every event id' }),
  type: Type.Literal('export.completed'),
  created_at: Type.String({ format: 'date-time' }),
  sync_id: Type.Null(),
  data: ExportCompletedData,
}))

/** What a webhook delivery's body holds: any change-feed event, webhook.test, or export.completed. */
export const WebhookEvent = component('WebhookEvent', Type.Union([...CHANGE_EVENT_SCHEMAS, WebhookTestEvent, ExportCompletedEvent], { description: 'The body of a webhook delivery; `type` tells which' }))
