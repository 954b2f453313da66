import { PartnerAnalyticsClient } from '../../../packages/client/src/client.js'
import type { Brand } from '../../../packages/client/src/types.js'
import { metricTextsOf, type MetricTexts } from '../model/catalog.js'
import { QueryCache } from './query-cache.js'
import type { Signal } from './signal.js'

/**
 * A signed-in partner: the typed client of packages/client (one login, one re-login and retry on
 * TOKEN_EXPIRED, waits and retries on 429 and TOO_MANY_ATTEMPTS) holding the key pair and token in
 * memory only. Nothing is written to localStorage, sessionStorage, cookies or the URL: reloading
 * the page or signing out forgets them.
 */

/** A wait the API asked for (429 or TOO_MANY_ATTEMPTS), shown while the client waits it out. */
export interface RateLimitWait {
  errorCode: string
  /** The Retry-After the API sent, in seconds. */
  retryAfterSeconds: number | undefined
  requestId: string | undefined
  /** When the client retries (ms since the epoch): Retry-After plus the client's jitter. */
  retryAt: number
}

export interface Profile {
  name: string
  /** Every accessible brand, from every page of GET /me. */
  brands: Brand[]
}

export interface Session {
  client: PartnerAnalyticsClient
  profile: Profile
  /** Metric labels and help text, from GET /catalog/metrics. */
  metrics: MetricTexts
  /** Results by query, for this session only; cleared by Refresh and dropped at sign-out. */
  cache: QueryCache
  /** Sign-out or an ended session: the client sends nothing more (a retry waiting out a 429, a walk under way). */
  end: () => void
}

/** Thrown into whatever the client still had under way when the session ended; never shown. */
export class SessionEndedError extends Error {
  constructor () {
    super('The session has ended')
    this.name = 'SessionEndedError'
  }
}

function createClient (clientKey: string, secretKey: string, waits: Signal<RateLimitWait | null>, isEnded: () => boolean): PartnerAnalyticsClient {
  return new PartnerAnalyticsClient({
    baseUrl: window.location.origin,
    clientKey,
    secretKey,
    // A wrapper, not `fetch` itself: the client calls it as a method, and the browser's fetch
    // throws "Illegal invocation" unless called on window. Any answer but a 429 ends a wait (a
    // new TOO_MANY_ATTEMPTS sets one again through onRetry, which runs after this).
    fetch: async (input, init) => {
      if (isEnded()) throw new SessionEndedError()
      const response = await window.fetch(input, init)
      if (response.status !== 429) waits.set(null)
      return response
    },
    onRetry: ({ delayMs, error }) => {
      if (isEnded()) return
      waits.set({
        errorCode: error.errorCode,
        retryAfterSeconds: 'retryAfterSeconds' in error ? error.retryAfterSeconds as number | undefined : undefined,
        requestId: error.requestId,
        retryAt: Date.now() + delayMs,
      })
    },
  })
}

/** Logs in, then reads the profile, every page of brands and the metric catalogue. Throws the client's typed errors. */
export async function signIn (clientKey: string, secretKey: string, waits: Signal<RateLimitWait | null>): Promise<Session> {
  let ended = false
  const client = createClient(clientKey, secretKey, waits, () => ended)
  await client.login()
  const brands: Brand[] = []
  let name = ''
  let cursor: string | undefined
  do {
    const page = await client.me({ limit: 100, cursor })
    name = page.name
    brands.push(...page.brands)
    cursor = page.next_cursor ?? undefined
  } while (cursor !== undefined)
  // After the brands, not beside them: its answer would end the wait a 429 of /me is showing.
  const metrics = metricTextsOf(await client.metricCatalog())
  return { client, profile: { name, brands }, metrics, cache: new QueryCache(), end: () => { ended = true } }
}
