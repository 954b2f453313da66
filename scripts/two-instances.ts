/**
 * `npm run two-instances`: two `partner-analytics serve` processes on one PostgreSQL and one Redis
 * (distinct ports, the same JWT_SECRET), showing that what one instance issues or counts holds on
 * the other (docs/reliability.md "Several instances"):
 *
 *   tokens     log in on A, use the token on B;
 *   cursors    a page from A, the next page from B, for /me and /posts;
 *   limits     a user's requests alternate A, B, A, … and share one minute window;
 *   lockout    wrong logins alternate between A and B and lock the key on both; 40 concurrent
 *              wrong logins spread over both evaluate LOGIN_MAX_FAILURES guesses at most;
 *              (TRUST_PROXY=true: each logical client sends its own X-Forwarded-For, as behind a
 *              load balancer, so the per-IP login limit does not mix them up)
 *   health     both report the database and Redis;
 *   shutdown   SIGTERM stops both, exit 0.
 *
 * PostgreSQL: TWO_INSTANCES_DATABASE_URL (default the test server; a private schema is created and
 * dropped). Redis: TWO_INSTANCES_REDIS_URL (default redis://127.0.0.1:6379; a unique key prefix,
 * deleted afterwards). Prints one line per check and exits 1 if any fails.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { createUser } from '../src/services/users/users.service.js'
import { createStore } from '../src/storage/db.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { freePort } from '../test/helpers/processes.js'
import { createSchema, dropSchema } from '../test/helpers/stores.js'
import { postRow } from '../test/posts/posts-fixtures.js'

const DATABASE_URL = process.env.TWO_INSTANCES_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const REDIS_URL = process.env.TWO_INSTANCES_REDIS_URL ?? 'redis://127.0.0.1:6379'
const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))
const TSX = import.meta.resolve('tsx')
const RATE_LIMIT_PER_MINUTE = 6
const LOGIN_MAX_FAILURES = 3

const results: Array<{ check: string, ok: boolean, detail: string }> = []

function record (check: string, ok: boolean, detail: string): void {
  results.push({ check, ok, detail })
  console.log(`${ok ? 'ok  ' : 'FAIL'}  ${check.padEnd(44)} ${detail}`)
}

interface Instance {
  name: string
  base: string
  child: ChildProcessWithoutNullStreams
}

async function startInstance (name: string, env: Record<string, string>): Promise<Instance> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve'], { env: { PATH: process.env.PATH ?? '', PORT: String(port), ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const deadline = Date.now() + 60_000
  while (!stdout.includes('Server listening')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`instance ${name} did not start: ${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { name, base: `http://127.0.0.1:${port}`, child }
}

async function call (instance: Instance, path: string, init: { method?: string, token?: string, body?: unknown, ip?: string } = {}) {
  const headers: Record<string, string> = {}
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  // TRUST_PROXY is on: each logical client has its own address, as behind a load balancer.
  headers['x-forwarded-for'] = init.ip ?? '203.0.113.1'
  const response = await fetch(`${instance.base}${path}`, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === '' ? {} : JSON.parse(text) as Record<string, unknown> }
}

async function main (): Promise<void> {
  const prefix = `two-instances:${randomBytes(5).toString('hex')}:`
  const { schema, databaseUrl } = await createSchema(DATABASE_URL, 'two')
  const store = createStore({ kind: 'postgres', url: DATABASE_URL, schema })
  const instances: Instance[] = []
  try {
    await migrateToLatest(store)
    await store.db.insertInto('brands').values([1, 2, 3].map((id) => ({ brand_id: id, brand_name: `Brand ${id}`, updated_at: '2026-01-01T00:00:00Z' }))).execute()
    await store.db.insertInto('accounts').values([1, 2, 3].map((id) => ({ platform: 'fb' as const, account_id: id * 10, brand_id: id, account_name: `Account ${id}`, network_id: null, storage_avatar: null, permalink: null, updated_at: '2026-01-01T00:00:00Z' }))).execute()
    const posts = Array.from({ length: 4 }, (_, i) => postRow('fb', `post-${i}`, 10, `2026-01-0${i + 1}T12:00:00Z`, { type: 'status', post_type: 'text', title: `Post ${i}`, views: i }))
    await store.db.insertInto('posts').values(posts).execute()
    const partner = await createUser(store.db, { name: 'Two-instance partner', brandIds: [1, 2, 3] })
    const victim = await createUser(store.db, { name: 'Locked partner', brandIds: [1] })
    const raced = await createUser(store.db, { name: 'Raced partner', brandIds: [1] })

    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      JWT_SECRET: randomBytes(32).toString('hex'),
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE),
      RATE_LIMIT_PER_HOUR: '0',
      LOGIN_MAX_FAILURES: String(LOGIN_MAX_FAILURES),
      TRUST_PROXY: 'true',
    }
    const [a, b] = [await startInstance('A', env), await startInstance('B', env)] as [Instance, Instance]
    instances.push(a, b)
    console.log(`instances: A ${a.base}, B ${b.base}; PostgreSQL schema ${schema}; Redis prefix ${prefix}`)

    for (const instance of instances) {
      const health = await call(instance, '/health')
      record(`health ${instance.name}`, health.status === 200 && health.body.database === 'ok' && health.body.redis === 'ok', `${health.status} ${JSON.stringify({ database: health.body.database, redis: health.body.redis })}`)
    }

    // Tokens: issued by A, accepted by B.
    const login = await call(a, '/auth/login', { method: 'POST', body: { api_client_key: partner.api_client_key, api_secret_key: partner.api_secret_key } })
    const token = String(login.body.access_token)
    const me = await call(b, '/me', { token })
    record('token from A accepted by B', login.status === 200 && me.status === 200, `login on A ${login.status}, GET /me on B ${me.status}`)

    // Cursors: page 1 on A, page 2 on B.
    const page1 = await call(a, '/me?limit=1', { token })
    const page2 = await call(b, `/me?limit=1&cursor=${encodeURIComponent(String(page1.body.next_cursor))}`, { token })
    const brands = (page: typeof page1) => (page.body.brands as Array<{ brand_id: number }>).map((brand) => brand.brand_id)
    record('/me cursor from A followed on B', page2.status === 200 && brands(page1)[0] === 1 && brands(page2)[0] === 2, `A brands ${JSON.stringify(brands(page1))}, B brands ${JSON.stringify(brands(page2))}`)
    const postsQuery = 'since=2026-01-01&until=2026-01-31&limit=2'
    const posts1 = await call(a, `/posts?${postsQuery}`, { token })
    const posts2 = await call(b, `/posts?${postsQuery}&cursor=${encodeURIComponent(String(posts1.body.next_cursor))}`, { token })
    const ids = (page: typeof posts1) => (page.body.data as Array<{ id: string }>).map((post) => post.id)
    record('/posts cursor from A followed on B', posts2.status === 200 && ids(posts2).length === 2 && ids(posts2).every((id) => !ids(posts1).includes(id)), `A ${JSON.stringify(ids(posts1))}, B ${JSON.stringify(ids(posts2))}, next ${JSON.stringify(posts2.body.next_cursor)}`)

    // One minute window shared: a fresh user's requests alternate between A and B.
    const left = 60_000 - (Date.now() % 60_000)
    if (left < 5000) await new Promise((resolve) => setTimeout(resolve, left + 100))
    const limited = await call(b, '/auth/login', { method: 'POST', ip: '203.0.113.2', body: { api_client_key: raced.api_client_key, api_secret_key: raced.api_secret_key } })
    const limitedToken = String(limited.body.access_token)
    const seen: string[] = []
    for (let i = 0; i < RATE_LIMIT_PER_MINUTE + 1; i++) {
      const instance = i % 2 === 0 ? a : b
      const response = await call(instance, '/me', { token: limitedToken })
      seen.push(`${instance.name}:${response.status}/${response.headers.get('x-ratelimit-remaining-minutely') ?? '-'}`)
    }
    const expected = [...Array.from({ length: RATE_LIMIT_PER_MINUTE }, (_, i) => `${i % 2 === 0 ? 'A' : 'B'}:200/${RATE_LIMIT_PER_MINUTE - 1 - i}`), `${RATE_LIMIT_PER_MINUTE % 2 === 0 ? 'A' : 'B'}:429/0`]
    record(`rate limit ${RATE_LIMIT_PER_MINUTE}/min shared by A and B`, JSON.stringify(seen) === JSON.stringify(expected), seen.join(' '))

    // Lockout: failures on A and B add up; the key is locked on both.
    const wrong = 'pas_' + 'w'.repeat(43)
    const failures: string[] = []
    for (let i = 0; i < LOGIN_MAX_FAILURES; i++) {
      const instance = i % 2 === 0 ? a : b
      const response = await call(instance, '/auth/login', { method: 'POST', ip: `203.0.113.${10 + i}`, body: { api_client_key: victim.api_client_key, api_secret_key: wrong } })
      failures.push(`${instance.name}:${String(response.body.error_code)}`)
    }
    const lockedA = await call(a, '/auth/login', { method: 'POST', ip: '203.0.113.20', body: { api_client_key: victim.api_client_key, api_secret_key: victim.api_secret_key } })
    const lockedB = await call(b, '/auth/login', { method: 'POST', ip: '203.0.113.21', body: { api_client_key: victim.api_client_key, api_secret_key: victim.api_secret_key } })
    record(`lockout after ${LOGIN_MAX_FAILURES} failures across A and B`, lockedA.body.error_code === 'TOO_MANY_ATTEMPTS' && lockedB.body.error_code === 'TOO_MANY_ATTEMPTS',
      `${failures.join(' ')}; right secret then: A ${String(lockedA.body.error_code)} (Retry-After ${lockedA.headers.get('retry-after') ?? '-'}), B ${String(lockedB.body.error_code)}`)

    // Concurrent wrong logins over both instances: at most LOGIN_MAX_FAILURES evaluated.
    const target = await createUser(store.db, { name: 'Concurrent target', brandIds: [1] })
    const answers = await Promise.all(Array.from({ length: 40 }, async (_, i) => await call(i % 2 === 0 ? a : b, '/auth/login', { method: 'POST', ip: `198.51.100.${i + 1}`, body: { api_client_key: target.api_client_key, api_secret_key: wrong } })))
    const tally: Record<string, number> = {}
    for (const answer of answers) tally[String(answer.body.error_code)] = (tally[String(answer.body.error_code)] ?? 0) + 1
    // Refused unevaluated: TOO_MANY_ATTEMPTS once locked, 429 while the admitted ones are being checked.
    const refused = (tally.TOO_MANY_ATTEMPTS ?? 0) + (tally.RATE_LIMIT_EXCEEDED ?? 0)
    record('40 concurrent wrong logins over A and B', tally.INVALID_CREDENTIALS === LOGIN_MAX_FAILURES && refused === 40 - LOGIN_MAX_FAILURES, JSON.stringify(tally))

    // Concurrent correct logins over both instances: attempts in flight are not failures, so all
    // end with a token; those told 429 retry after Retry-After (plus jitter, as the client does).
    const etl = await createUser(store.db, { name: 'ETL partner', brandIds: [1] })
    const deadline = Date.now() + 30_000
    const outcomes = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const seen: string[] = []
      while (Date.now() < deadline) {
        const answer = await call(i % 2 === 0 ? a : b, '/auth/login', { method: 'POST', ip: `192.0.2.${i + 1}`, body: { api_client_key: etl.api_client_key, api_secret_key: etl.api_secret_key } })
        seen.push(String(answer.status))
        if (answer.status !== 429) break
        await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? '1') * 1000 + Math.random() * 500))
      }
      return seen
    }))
    const answersSeen: Record<string, number> = {}
    for (const status of outcomes.flat()) answersSeen[status] = (answersSeen[status] ?? 0) + 1
    record(`20 concurrent correct logins over A and B (LOGIN_MAX_FAILURES=${LOGIN_MAX_FAILURES})`, outcomes.every((seen) => seen.at(-1) === '200'), JSON.stringify(answersSeen))
  } finally {
    for (const instance of instances) {
      const started = Date.now()
      instance.child.kill('SIGTERM')
      const code = await new Promise<number | null>((resolve) => {
        if (instance.child.exitCode !== null) resolve(instance.child.exitCode)
        const timer = setTimeout(() => { instance.child.kill('SIGKILL'); resolve(null) }, 15_000)
        instance.child.once('exit', (exit) => { clearTimeout(timer); resolve(exit) })
      })
      record(`SIGTERM ${instance.name}`, code === 0, `exit ${String(code)} after ${Date.now() - started} ms`)
    }
    await store.destroy()
    await dropSchema(DATABASE_URL, schema)
    const redis = new Redis(REDIS_URL)
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  }
  const failed = results.filter((result) => !result.ok)
  console.log(failed.length === 0 ? `all ${results.length} checks passed` : `${failed.length} of ${results.length} checks failed`)
  process.exitCode = failed.length === 0 ? 0 : 1
}

await main()
