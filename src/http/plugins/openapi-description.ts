import { PLATFORM_CODES, PLATFORM_DISPLAY_NAMES, PLATFORM_NAMES } from '../../domain/platforms.js'

/** The platform table of docs/api-reference.md, generated from src/domain/platforms.ts so it cannot drift. */
export function platformAliasTable (): string {
  const rows = PLATFORM_CODES.map((code) => {
    const name = PLATFORM_NAMES[code]
    return `| ${PLATFORM_DISPLAY_NAMES[code]} | \`${code}\` | \`${name}\`, \`${code}\` |`
  })
  return ['| Platform | Code | Accepted aliases (case-insensitive) |', '|---|---|---|', ...rows].join('\n')
}

/** The document's `info.description`: what a partner needs before the first request. */
export function apiDescription (): string {
  return `Programmatic access to your brands' social-media metrics across nine platforms.

## Authentication
Trade your API client key and secret for a bearer token with \`POST /auth/login\`, then send
\`Authorization: Bearer <token>\` on every other request. A token lives \`expires_in\` seconds. There is
no refresh operation: on \`401 TOKEN_EXPIRED\` log in again once and retry; never retry
\`TOKEN_INVALID\`; escalate \`INVALID_CREDENTIALS\` and \`USER_DISABLED\` (403). After
\`TOO_MANY_ATTEMPTS\` wait \`Retry-After\` seconds and back off exponentially.

## Platforms
Wherever a platform is accepted (\`platform\` query parameter), a code or an alias may be used;
responses always use the code (posts carry the full lower-case name).

${platformAliasTable()}

Canonical order (output order and \`platforms\`): ${PLATFORM_CODES.join(', ')}.

## Paging
\`/me\` and \`/posts\` return \`next_cursor\` (null on the last page); \`/analytics/?type=daily\` returns
\`next_cursor\` only when another page exists. Pass it back as \`cursor\` with the same other
parameters: cursors are opaque, signed and bound to the query that produced them.

## Rate limits
Per user on protected routes and per IP on \`/auth/login\`, in a minute and an hour window. Every
limited response carries \`x-ratelimit-{limit,remaining,reset}-{minutely,hourly}\`, \`X-Usage-Total\`
and \`X-Usage-Period\`; a \`429 RATE_LIMIT_EXCEEDED\` adds \`Retry-After\` (seconds).

## Errors
Errors share one body: \`{detail, error_code, status_code, status: "error", timestamp, request_id}\`.
A 422 has \`detail\` as a list of \`{loc, msg, type, ctx}\`. A 400 for \`account_id\` without exactly one
platform is \`{detail}\` only. Every response carries \`X-Request-Id\`, equal to the body's \`request_id\`.
An unknown path is \`404 NOT_FOUND\`; a known path asked with another method is
\`405 METHOD_NOT_ALLOWED\` with an \`Allow\` header listing the methods it serves.

## Caching and compression
Successful answers of \`/me\`, \`/analytics/\` and \`/posts\` carry a weak \`ETag\` and
\`Cache-Control: private, no-cache\`; send the ETag back as \`If-None-Match\` and an unchanged answer
is \`304 Not Modified\` with no body (the data changes only when new data is imported). Send
\`Accept-Encoding: br\` or \`gzip\` and answers of 1 KB or more come compressed.`
}
