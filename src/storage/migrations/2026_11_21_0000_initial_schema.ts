import type { Kysely } from 'kysely'

/**
 * The initial schema, one file for SQLite and PostgreSQL. Type names are chosen so both read them
 * right: `bigint` is INTEGER affinity in SQLite and int8 in PostgreSQL; `date` and `timestamptz`
 * are native in PostgreSQL and hold ISO-8601 text in SQLite (which compares correctly as text).
 */

/**
 * The metric columns of daily_metrics as they were when this migration was written. A migration
 * must never change once applied, so it does not read the catalogue (src/domain/metrics.ts): a new
 * metric is a new migration.
 */
const DAILY_COUNT_METRICS = [
  'views', 'followers', 'new_followers', 'posts_count', 'interactions', 'video_views_3s', 'video_views_2s',
  'views_video', 'reach', 'impressions', 'ad_reach', 'likes', 'shares', 'comments', 'views_organic',
  'views_paid', 'link_clicks',
] as const

// Kysely's schema builder is typed for the current database; migrations must not depend on it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

export async function up (db: AnyDb): Promise<void> {
  await db.schema.createTable('brands')
    .addColumn('brand_id', 'bigint', (col) => col.primaryKey())
    .addColumn('brand_name', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull())
    .execute()

  await db.schema.createTable('accounts')
    .addColumn('platform', 'text', (col) => col.notNull())
    .addColumn('account_id', 'bigint', (col) => col.notNull())
    .addColumn('brand_id', 'bigint', (col) => col.notNull().references('brands.brand_id'))
    .addColumn('account_name', 'text', (col) => col.notNull())
    .addColumn('network_id', 'text')
    .addColumn('storage_avatar', 'text')
    .addColumn('permalink', 'text')
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull())
    // Account ids are unique per platform only (docs/api-reference.md "Basics").
    .addPrimaryKeyConstraint('accounts_pk', ['platform', 'account_id'])
    .execute()
  // Brand scoping: every analytics read starts from "the accounts of these brands".
  await db.schema.createIndex('accounts_brand_idx').on('accounts').columns(['brand_id', 'platform', 'account_id']).execute()

  let daily = db.schema.createTable('daily_metrics')
    .addColumn('platform', 'text', (col) => col.notNull())
    .addColumn('account_id', 'bigint', (col) => col.notNull())
    .addColumn('date', 'date', (col) => col.notNull())
    .addColumn('revenue_micros', 'bigint')
  for (const metric of DAILY_COUNT_METRICS) daily = daily.addColumn(metric, 'bigint')
  await daily
    // The primary key is the analytics access path: one account, a date range.
    .addPrimaryKeyConstraint('daily_metrics_pk', ['platform', 'account_id', 'date'])
    .addForeignKeyConstraint('daily_metrics_account_fk', ['platform', 'account_id'], 'accounts', ['platform', 'account_id'])
    .execute()

  await db.schema.createTable('posts')
    .addColumn('platform', 'text', (col) => col.notNull())
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('account_id', 'bigint', (col) => col.notNull())
    .addColumn('created_time', 'timestamptz', (col) => col.notNull())
    .addColumn('type', 'text')
    .addColumn('post_type', 'text', (col) => col.notNull())
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('permalink', 'text')
    .addColumn('thumbnail_url', 'text')
    .addColumn('subjects', 'text')
    .addColumn('category', 'text')
    .addColumn('views', 'bigint')
    .addColumn('likes', 'bigint')
    .addColumn('comments', 'bigint')
    .addColumn('shares', 'bigint')
    .addColumn('interactions', 'bigint')
    .addColumn('reach', 'bigint')
    .addColumn('impressions', 'bigint')
    .addColumn('revenue_micros', 'bigint')
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('posts_pk', ['platform', 'id'])
    .addForeignKeyConstraint('posts_account_fk', ['platform', 'account_id'], 'accounts', ['platform', 'account_id'])
    .execute()
  await db.schema.createIndex('posts_account_time_idx').on('posts').columns(['platform', 'account_id', 'created_time']).execute()

  await db.schema.createTable('users')
    .addColumn('user_id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('disabled_at', 'timestamptz')
    .execute()

  await db.schema.createTable('credentials')
    .addColumn('client_key', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.user_id').onDelete('cascade'))
    .addColumn('secret_digest', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .execute()
  await db.schema.createIndex('credentials_user_idx').on('credentials').column('user_id').execute()

  await db.schema.createTable('user_brands')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.user_id').onDelete('cascade'))
    .addColumn('brand_id', 'bigint', (col) => col.notNull().references('brands.brand_id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('user_brands_pk', ['user_id', 'brand_id'])
    .execute()
  await db.schema.createIndex('user_brands_brand_idx').on('user_brands').column('brand_id').execute()
}

export async function down (db: AnyDb): Promise<void> {
  for (const table of ['user_brands', 'credentials', 'users', 'posts', 'daily_metrics', 'accounts', 'brands']) {
    await db.schema.dropTable(table).execute()
  }
}
