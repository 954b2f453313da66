import { PostgresAdapter, sql, type Kysely } from 'kysely'

/**
 * Snapshot reads for GET /posts paging (docs/posts.md "Paging under concurrent imports").
 *
 * Every write to `posts` gets a `revision` from a commit-ordered clock, and the version it
 * replaces (or deletes) is kept in `post_history` with the revision that superseded it. A page
 * walk remembers the clock value of its first page (S) and reads "posts as of S": current rows
 * with revision <= S plus history rows with revision <= S < superseded_revision. Triggers do the
 * bookkeeping so every writer (import, demo, a hand-written UPDATE) is covered.
 *
 * Commit order: in PostgreSQL a statement-level trigger bumps the single `post_clock` row, whose
 * row lock is then held until commit, so writers take revisions in commit order and a committed
 * clock value S means every write numbered <= S is visible. SQLite has one writer at a time.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>

/** Columns of a post version (the key, the data, the metrics); fixed here, as a migration must be. */
const VERSION_COLUMNS = [
  'platform', 'id', 'account_id', 'created_time', 'type', 'post_type', 'title', 'description', 'permalink',
  'thumbnail_url', 'subjects', 'category', 'views', 'likes', 'comments', 'shares', 'interactions', 'reach',
  'impressions', 'revenue_micros',
] as const
/** A re-import that changes none of these (only updated_at) is not a new version. */
const DATA_COLUMNS = VERSION_COLUMNS.filter((column) => column !== 'platform' && column !== 'id')

export async function up (db: AnyDb): Promise<void> {
  const isPostgres = await isPostgresDb(db)
  await db.schema.alterTable('posts').addColumn('revision', 'bigint', (col) => col.notNull().defaultTo(0)).execute()

  await db.schema.createTable('post_clock')
    .addColumn('singleton', 'integer', (col) => col.primaryKey())
    .addColumn('tick', 'bigint', (col) => col.notNull())
    .execute()
  await db.insertInto('post_clock').values({ singleton: 1, tick: 0 }).execute()

  await db.schema.createTable('post_history')
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
    /** The revision this version was written at. */
    .addColumn('revision', 'bigint', (col) => col.notNull())
    /** The revision that replaced or deleted it: the version is part of snapshots in [revision, superseded_revision). */
    .addColumn('superseded_revision', 'bigint', (col) => col.notNull())
    .addColumn('superseded_at', 'timestamptz', (col) => col.notNull())
    .execute()
  // Snapshot reads look history up by "superseded after S"; pruning by age uses superseded_at.
  await db.schema.createIndex('post_history_superseded_idx').on('post_history').columns(['superseded_revision', 'platform', 'account_id']).execute()
  await db.schema.createIndex('post_history_superseded_at_idx').on('post_history').column('superseded_at').execute()

  if (isPostgres) await createPostgresTriggers(db)
  else await createSqliteTriggers(db)
}

const oldColumns = VERSION_COLUMNS.map((column) => `old.${column}`).join(', ')
const changed = DATA_COLUMNS.map((column) => `old.${column} is distinct from new.${column}`).join(' or ')

async function createPostgresTriggers (db: AnyDb): Promise<void> {
  await sql.raw(`
    create function post_clock_bump() returns trigger language plpgsql as $$
    begin
      update post_clock set tick = tick + 1 where singleton = 1;
      return null;
    end $$`).execute(db)
  await sql.raw(`
    create function post_version_stamp() returns trigger language plpgsql as $$
    declare
      now_tick bigint;
    begin
      if tg_op = 'UPDATE' and not (${changed}) then
        new.revision := old.revision;
        return new;
      end if;
      select tick into now_tick from post_clock where singleton = 1;
      if tg_op = 'UPDATE' then
        insert into post_history (${VERSION_COLUMNS.join(', ')}, revision, superseded_revision, superseded_at)
        values (${oldColumns}, old.revision, now_tick, now());
      end if;
      new.revision := now_tick;
      return new;
    end $$`).execute(db)
  await sql.raw(`
    create function post_version_archive() returns trigger language plpgsql as $$
    begin
      insert into post_history (${VERSION_COLUMNS.join(', ')}, revision, superseded_revision, superseded_at)
      select ${oldColumns}, old.revision, tick, now() from post_clock where singleton = 1;
      return old;
    end $$`).execute(db)
  await sql.raw('create trigger posts_clock_bump before insert or update or delete on posts for each statement execute function post_clock_bump()').execute(db)
  await sql.raw('create trigger posts_version_stamp before insert or update on posts for each row execute function post_version_stamp()').execute(db)
  await sql.raw('create trigger posts_version_archive before delete on posts for each row execute function post_version_archive()').execute(db)
}

async function createSqliteTriggers (db: AnyDb): Promise<void> {
  const now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
  const tick = '(select tick from post_clock where singleton = 1)'
  const bump = 'update post_clock set tick = tick + 1 where singleton = 1;'
  // SQLite triggers cannot assign NEW, so they stamp the row after the fact. That stamping
  // UPDATE changes `revision`, which the update trigger's WHEN clause excludes: no recursion.
  await sql.raw(`
    create trigger posts_version_insert after insert on posts begin
      ${bump}
      update posts set revision = ${tick} where platform = new.platform and id = new.id;
    end`).execute(db)
  await sql.raw(`
    create trigger posts_version_update after update on posts
    when new.revision = old.revision and (${changed.replaceAll('is distinct from', 'is not')}) begin
      ${bump}
      insert into post_history (${VERSION_COLUMNS.join(', ')}, revision, superseded_revision, superseded_at)
      values (${oldColumns}, old.revision, ${tick}, ${now});
      update posts set revision = ${tick} where platform = new.platform and id = new.id;
    end`).execute(db)
  await sql.raw(`
    create trigger posts_version_delete before delete on posts begin
      ${bump}
      insert into post_history (${VERSION_COLUMNS.join(', ')}, revision, superseded_revision, superseded_at)
      values (${oldColumns}, old.revision, ${tick}, ${now});
    end`).execute(db)
}

export async function down (db: AnyDb): Promise<void> {
  if (await isPostgresDb(db)) {
    await sql.raw('drop trigger posts_clock_bump on posts; drop trigger posts_version_stamp on posts; drop trigger posts_version_archive on posts').execute(db)
    await sql.raw('drop function post_clock_bump(); drop function post_version_stamp(); drop function post_version_archive()').execute(db)
  } else {
    for (const trigger of ['posts_version_insert', 'posts_version_update', 'posts_version_delete']) await sql.raw(`drop trigger ${trigger}`).execute(db)
  }
  await db.schema.dropTable('post_history').execute()
  await db.schema.dropTable('post_clock').execute()
  await db.schema.alterTable('posts').dropColumn('revision').execute()
}

/** The one place the dialects differ: PostgreSQL has real triggers that assign NEW. */
async function isPostgresDb (db: AnyDb): Promise<boolean> {
  return db.getExecutor().adapter instanceof PostgresAdapter
}
