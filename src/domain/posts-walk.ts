/**
 * How long a /posts page walk may last, and so how long replaced post versions are kept.
 * A walk reads posts as of its first page (docs/posts.md); the versions it may need live in
 * post_history until the import prunes them. Cursors older than the walk limit are refused (422),
 * so history older than that (plus a margin for clock skew between app and database) is dead.
 */
export const POSTS_WALK_MAX_AGE_SECONDS = 24 * 60 * 60

export const POST_HISTORY_RETENTION_SECONDS = POSTS_WALK_MAX_AGE_SECONDS + 60 * 60
