import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js'
import { baseUrlProblem, printableBaseUrl } from './base-url.js'
import { errorFromResponse, NetworkError, ServerError, TokenExpiredError, TooManyAttemptsError, RateLimitError, ServiceUnavailableError, type PartnerAnalyticsError } from './errors.js'
import { describeNetworkFailure } from './network-cause.js'
import type {
  CreateExportBody, ExportJob, ExportList, ExportManifest, ExportsQuery,
  AccountStatus, AnalyticsQuery, Brand, ChangesPage, ChangesQuery, CreateWebhookBody, DailyEntry, DailyReport, DataStatusPage, DataStatusQuery,
  HealthResponse, MeQuery, MeResponse, MetricCatalog, Post, PostsQuery, PostsResponse, ReportOf, ReportRequest, ReportResponse, ReportRow, TokenResponse,
  UpdateWebhookBody, Webhook, WebhookDeliveriesQuery, WebhookDelivery, WebhookDeliveryPage, WebhookList, WebhookWithSecret,
} from './types.js'

export interface ClientOptions {
  /** e.g. https://api.example.com, or https://gateway.example.com/partner-analytics behind a gateway. */
  baseUrl: string
  clientKey: string
  secretKey: string
  /** Start with this token instead of logging in first (e.g. one cached by the caller). */
  accessToken?: string
  /** Retry policy for TOO_MANY_ATTEMPTS, 429 and 503 SERVICE_UNAVAILABLE. */
  backoff?: Partial<BackoffOptions>
  /**
   * Milliseconds one request may take, answer body included, before it fails with a NetworkError
   * (default 60 000; 0 waits forever). Without it a server that accepts the connection and never
   * answers holds the caller for undici's 300 s header timeout.
   */
  timeoutMs?: number
  /**
   * Cancels every request of this client, e.g. on Ctrl-C: the request in flight is aborted (its
   * connection closed) and the call rejects with the signal's reason, not with a NetworkError.
   */
  signal?: AbortSignal
  /** Injected for tests and custom transports; global fetch by default. */
  fetch?: typeof fetch
  /** How to wait between retries; setTimeout by default. */
  sleep?: (ms: number) => Promise<void>
  /** Called before each wait, e.g. to log it. */
  onRetry?: (info: { attempt: number, delayMs: number, error: PartnerAnalyticsError }) => void
}

type QueryValue = string | number | boolean | readonly (string | number)[] | undefined

const defaultSleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

/** How long changePages({ follow: true }) waits, once caught up, before asking again. */
export const DEFAULT_POLL_INTERVAL_MS = 30_000

/** How often waitExport asks, and how long it waits at most, by default. */
export const DEFAULT_EXPORT_POLL_MS = 2_000
export const DEFAULT_EXPORT_WAIT_MS = 3_600_000

/** waitExport gave up: the job (as last seen) had not finished within its timeout. */
export class ExportWaitTimeoutError extends Error {
  constructor (readonly job: ExportJob) {
    super(`export ${job.id} is still ${job.status} (${job.progress.rows_written} rows written)`)
    this.name = 'ExportWaitTimeoutError'
  }
}

/** Default of ClientOptions.timeoutMs. */
export const DEFAULT_TIMEOUT_MS = 60_000

/**
 * The Partner Analytics client. Logs in lazily, sends the bearer token, and follows the API's
 * re-login policy (docs/api-reference.md, "Authentication"): on TOKEN_EXPIRED one re-login and one
 * retry; no retry on TOKEN_INVALID; INVALID_CREDENTIALS and USER_DISABLED are thrown as typed
 * errors; TOO_MANY_ATTEMPTS, 429 and 503 SERVICE_UNAVAILABLE are retried with exponential backoff and jitter on top of
 * Retry-After, a bounded number of times. No answer at all is a NetworkError, never retried.
 */
export class PartnerAnalyticsClient {
  private readonly baseUrl: string
  private readonly backoff: BackoffOptions
  private readonly fetchImpl: typeof fetch
  private readonly sleep: (ms: number) => Promise<void>
  private readonly timeoutMs: number
  private token: string | undefined
  private pendingLogin: Promise<TokenResponse> | undefined
  /** Logins finished (either way) so far: a call notes it when sent, to tell whether a re-login came after it. */
  private loginsSettled = 0
  /** The newest finished login's failure; undefined when it succeeded. */
  private lastLoginFailure: { error: unknown } | undefined

  constructor (private readonly options: ClientOptions) {
    const problem = baseUrlProblem(options.baseUrl)
    if (problem !== undefined) throw new TypeError(`baseUrl ${problem} (got ${JSON.stringify(printableBaseUrl(options.baseUrl))})`)
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff }
    this.fetchImpl = options.fetch ?? globalThis.fetch
    this.sleep = options.sleep ?? defaultSleep
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.token = options.accessToken
  }

  /** POST /auth/login; the token is kept for the following calls. Concurrent callers share one login. */
  async login (): Promise<TokenResponse> {
    this.pendingLogin ??= this.send<TokenResponse>('POST', '/auth/login', {}, {
      api_client_key: this.options.clientKey,
      api_secret_key: this.options.secretKey,
    }).then((token) => {
      this.token = token.access_token
      this.lastLoginFailure = undefined
      return token
    }, (error: unknown) => {
      this.lastLoginFailure = { error }
      throw error
    }).finally(() => {
      this.loginsSettled++
      this.pendingLogin = undefined
    })
    return await this.pendingLogin
  }

  /**
   * A call sent when `settledAtSend` logins had finished got TOKEN_EXPIRED. One expiry, one
   * re-login: every call that rode the expired token shares it. A login under way is awaited; one
   * that finished after the call was sent stands for it (its token is used, or its failure thrown:
   * a refused re-login is not asked again by each call still in flight); otherwise this call logs in.
   */
  private async renewAfterExpiry (settledAtSend: number): Promise<void> {
    if (this.pendingLogin !== undefined) {
      await this.pendingLogin
      return
    }
    if (this.loginsSettled !== settledAtSend) {
      if (this.lastLoginFailure !== undefined) throw this.lastLoginFailure.error
      return
    }
    await this.login()
  }

  async health (): Promise<HealthResponse> {
    return await this.send<HealthResponse>('GET', '/health', {})
  }

  /** GET /me: the user and one page of brands. */
  async me (query: MeQuery = {}): Promise<MeResponse> {
    return await this.authorized<MeResponse>('/me', query)
  }

  /** GET /analytics/: one response (one page for type=daily), typed by the report `type` selects. */
  async analytics<Q extends AnalyticsQuery> (query: Q = {} as Q): Promise<ReportOf<Q>> {
    return await this.authorized<ReportOf<Q>>('/analytics/', { ...query })
  }

  /** GET /posts: one page. */
  async posts (query: PostsQuery = {}): Promise<PostsResponse> {
    return await this.authorized<PostsResponse>('/posts', { ...query })
  }

  /** GET /data-status: one page of accounts with their coverage, last sync and missing days. */
  async dataStatus (query: DataStatusQuery = {}): Promise<DataStatusPage> {
    return await this.authorized<DataStatusPage>('/data-status', { ...query })
  }

  /** Every account's status for the query, following next_cursor (brand, platform, account order). */
  async * accountStatuses (query: Omit<DataStatusQuery, 'cursor'> = {}): AsyncGenerator<AccountStatus> {
    let cursor: string | undefined
    do {
      const page = await this.dataStatus({ ...query, cursor })
      yield * page.data
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
  }

  /** GET /catalog/metrics: every metric the reports carry (public: sent without the token). */
  async metricCatalog (): Promise<MetricCatalog> {
    return await this.send<MetricCatalog>('GET', '/catalog/metrics', {})
  }

  /** Every accessible brand, following /me's next_cursor. */
  async * brands (options: { pageSize?: number } = {}): AsyncGenerator<Brand> {
    let cursor: string | undefined
    do {
      const page = await this.me({ limit: options.pageSize, cursor })
      yield * page.brands
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
  }

  /** Every page of a type=daily query, following next_cursor until it is absent. */
  async * dailyPages (query: Omit<AnalyticsQuery, 'type' | 'cursor'> = {}): AsyncGenerator<DailyReport> {
    let cursor: string | undefined
    do {
      const page: DailyReport = await this.analytics({ ...query, type: 'daily', cursor })
      yield page
      cursor = page.next_cursor
    } while (cursor !== undefined)
  }

  /** Every daily entry of the period, page after page (latest date first). */
  async * dailyEntries (query: Omit<AnalyticsQuery, 'type' | 'cursor'> = {}): AsyncGenerator<DailyEntry> {
    for await (const page of this.dailyPages(query)) yield * page.data
  }

  /** Every page of a /posts query. */
  async * postPages (query: Omit<PostsQuery, 'cursor'> = {}): AsyncGenerator<PostsResponse> {
    let cursor: string | undefined
    do {
      const page = await this.posts({ ...query, cursor })
      yield page
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
  }

  /** Every post matching the query, across pages. */
  async * allPosts (query: Omit<PostsQuery, 'cursor'> = {}): AsyncGenerator<Post> {
    for await (const page of this.postPages(query)) yield * page.data
  }

  /**
   * GET /changes: one page of the change feed. Pass the `next_cursor` you stored as `cursor`, or
   * `start: 'latest'` to get a cursor at the head. Throws CursorExpiredError (410) when the cursor
   * is older than the server's retention.
   */
  async changes (query: ChangesQuery = {}): Promise<ChangesPage> {
    return await this.authorized<ChangesPage>('/changes', { ...query })
  }

  /**
   * The change feed page after page, from `query.cursor` (or `query.start`, or the oldest event
   * the server keeps), each page with the `next_cursor` that continues after it. It stores
   * nothing: apply a page's events, then store its `next_cursor` yourself — a crash in between
   * reads those events again (at-least-once). Ends with the first page that has `has_more: false`
   * (caught up); with `follow`, waits `pollIntervalMs` (default 30 s) instead and asks again,
   * until you break out of the loop or the client's `signal` aborts.
   */
  async * changePages (query: ChangesQuery = {}, options: { follow?: boolean, pollIntervalMs?: number } = {}): AsyncGenerator<ChangesPage> {
    let next: ChangesQuery = query
    for (;;) {
      const page = await this.changes(next)
      yield page
      // Later pages continue from the cursor alone (start only says where the first one begins).
      next = { ...query, start: undefined, cursor: page.next_cursor }
      if (page.has_more) continue
      if (options.follow !== true) return
      await this.pause(options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS)
    }
  }

  /** Waits between polls; the client's signal ends the wait at once (rejecting with its reason). */
  private async pause (ms: number): Promise<void> {
    const signal = this.options.signal
    signal?.throwIfAborted()
    if (this.options.sleep !== undefined || signal === undefined) return await this.sleep(ms)
    // Plain timers (the dashboard runs this client in the browser); rejected with the signal's reason, as requests are.
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        clearTimeout(timer)
        reject(signal.reason)
      }
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** POST /reports: one page of a report (docs/reports.md). */
  async report (request: ReportRequest): Promise<ReportResponse> {
    return await this.authorized<ReportResponse>('/reports', {}, 'POST', request)
  }

  /** Every row of a report, page after page (the request's `limit` is the page size). */
  async * reportRows (request: Omit<ReportRequest, 'cursor' | 'offset'>): AsyncGenerator<ReportRow> {
    let cursor: string | undefined
    do {
      const page = await this.report(cursor === undefined ? request : { ...request, cursor })
      yield * page.rows
      cursor = page.next_cursor
    } while (cursor !== undefined)
  }

  /** GET /webhooks: your webhook endpoints (docs/webhooks.md). */
  async listWebhooks (): Promise<WebhookList> {
    return await this.authorized<WebhookList>('/webhooks', {})
  }

  /** POST /webhooks: the answer holds the signing secret, shown only here. */
  async createWebhook (body: CreateWebhookBody): Promise<WebhookWithSecret> {
    return await this.authorized<WebhookWithSecret>('/webhooks', {}, 'POST', body)
  }

  async getWebhook (id: string): Promise<Webhook> {
    return await this.authorized<Webhook>(`/webhooks/${encodeURIComponent(id)}`, {})
  }

  async updateWebhook (id: string, body: UpdateWebhookBody): Promise<Webhook> {
    return await this.authorized<Webhook>(`/webhooks/${encodeURIComponent(id)}`, {}, 'PATCH', body)
  }

  async deleteWebhook (id: string): Promise<void> {
    await this.authorized<undefined>(`/webhooks/${encodeURIComponent(id)}`, {}, 'DELETE')
  }

  /** A new signing secret (shown only here); the previous one signs beside it for 24 hours. */
  async rotateWebhookSecret (id: string): Promise<WebhookWithSecret> {
    return await this.authorized<WebhookWithSecret>(`/webhooks/${encodeURIComponent(id)}/rotate-secret`, {}, 'POST')
  }

  /** Queues a webhook.test event for the endpoint now. */
  async testWebhook (id: string): Promise<WebhookDelivery> {
    return await this.authorized<WebhookDelivery>(`/webhooks/${encodeURIComponent(id)}/test`, {}, 'POST')
  }

  /** One page of the delivery log, newest first. */
  async webhookDeliveries (id: string, query: WebhookDeliveriesQuery = {}): Promise<WebhookDeliveryPage> {
    return await this.authorized<WebhookDeliveryPage>(`/webhooks/${encodeURIComponent(id)}/deliveries`, query)
  }

  async redeliverWebhookDelivery (id: string, deliveryId: string): Promise<WebhookDelivery> {
    return await this.authorized<WebhookDelivery>(`/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`, {}, 'POST')
  }

  /** POST /exports: queues a bulk export (docs/exports.md); the job comes back `queued`. */
  async createExport (body: CreateExportBody): Promise<ExportJob> {
    return await this.authorized<ExportJob>('/exports', {}, 'POST', body)
  }

  /** GET /exports: one page of your export jobs, newest first. */
  async exports (query: ExportsQuery = {}): Promise<ExportList> {
    return await this.authorized<ExportList>('/exports', { ...query })
  }

  /** Every export job, newest first, following next_cursor. */
  async * allExports (options: { pageSize?: number } = {}): AsyncGenerator<ExportJob> {
    let cursor: string | undefined
    do {
      const page = await this.exports({ limit: options.pageSize, cursor })
      yield * page.data
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
  }

  async getExport (id: string): Promise<ExportJob> {
    return await this.authorized<ExportJob>(`/exports/${encodeURIComponent(id)}`, {})
  }

  /**
   * DELETE /exports/{id}: a queued or running job is cancelled (its job returned, `cancelled`); a
   * finished one is removed with its files (undefined).
   */
  async cancelExport (id: string): Promise<ExportJob | undefined> {
    return await this.authorized<ExportJob | undefined>(`/exports/${encodeURIComponent(id)}`, {}, 'DELETE')
  }

  /**
   * Polls the job every `pollIntervalMs` (default 2 s) until it is succeeded, failed or cancelled,
   * and returns it; `onProgress` sees each poll. Bounded: after `timeoutMs` (default 1 hour) it
   * throws an ExportWaitTimeoutError holding the job as last seen. The client's signal ends the wait.
   */
  async waitExport (id: string, options: { pollIntervalMs?: number, timeoutMs?: number, onProgress?: (job: ExportJob) => void } = {}): Promise<ExportJob> {
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_EXPORT_WAIT_MS)
    for (;;) {
      const job = await this.getExport(id)
      options.onProgress?.(job)
      if (job.status === 'succeeded' || job.status === 'failed' || job.status === 'cancelled') return job
      const left = deadline - Date.now()
      if (left <= 0) throw new ExportWaitTimeoutError(job)
      await this.pause(Math.min(left, options.pollIntervalMs ?? DEFAULT_EXPORT_POLL_MS))
    }
  }

  /** GET /exports/{id}/manifest: files, schema, sync id and the change-feed cursor to follow from. */
  async exportManifest (id: string): Promise<ExportManifest> {
    return await this.authorized<ExportManifest>(`/exports/${encodeURIComponent(id)}/manifest`, {})
  }

  /** The change feed from an export's snapshot on: the changes its files do not hold (see changePages). */
  async * changesSince (manifest: Pick<ExportManifest, 'changes_cursor'>, options: { follow?: boolean, pollIntervalMs?: number } = {}): AsyncGenerator<ChangesPage> {
    yield * this.changePages({ cursor: manifest.changes_cursor }, options)
  }

  /**
   * GET /exports/{id}/files/{name} as a streaming Response (200, or 206 for a `range` header);
   * other answers are thrown as typed errors. To save files, verified and resumed, use
   * downloadExport / downloadExportFile (Node only).
   */
  async exportFileResponse (id: string, name: string, headers: Record<string, string>): Promise<Response> {
    const url = this.url(`/exports/${encodeURIComponent(id)}/files/${encodeURIComponent(name)}`, {})
    for (let attempt = 1; ; attempt++) {
      if (this.token === undefined) await this.login()
      const signal = this.options.signal
      const settledAtSend = this.loginsSettled
      let response: Response
      try {
        response = await this.fetchImpl(url, { headers: { ...headers, authorization: `Bearer ${this.token ?? ''}` }, signal })
      } catch (error) {
        if (signal?.aborted === true) throw error
        throw new NetworkError('GET', url, describeNetworkFailure(error, { url, timeoutMs: 0 }), error)
      }
      if (response.status === 200 || response.status === 206) return response
      const error = errorFromResponse(response.status, await readJson(response), response.headers)
      if (error instanceof TokenExpiredError && attempt === 1) {
        await this.renewAfterExpiry(settledAtSend)
        continue
      }
      const retryable = error instanceof TooManyAttemptsError || error instanceof RateLimitError || error instanceof ServiceUnavailableError
      if (!retryable || attempt >= this.backoff.maxAttempts) throw error
      const delayMs = backoffDelayMs(attempt, error.retryAfterSeconds, this.backoff)
      this.options.onRetry?.({ attempt, delayMs, error })
      await this.sleep(delayMs)
    }
  }

  /** A protected call: logs in when needed; on TOKEN_EXPIRED logs in again once and retries once. */
  private async authorized<T> (path: string, query: Record<string, QueryValue>, method: 'GET' | 'POST' | 'PATCH' | 'DELETE' = 'GET', body?: unknown): Promise<T> {
    if (this.token === undefined) await this.login()
    const settledAtSend = this.loginsSettled
    try {
      return await this.send<T>(method, path, query, body, this.token)
    } catch (error) {
      if (!(error instanceof TokenExpiredError)) throw error
      await this.renewAfterExpiry(settledAtSend)
      return await this.send<T>(method, path, query, body, this.token)
    }
  }

  /** One call with the backoff loop for TOO_MANY_ATTEMPTS, 429 and 503 SERVICE_UNAVAILABLE; other errors are thrown at once. */
  private async send<T> (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, query: Record<string, QueryValue>, body?: unknown, token?: string): Promise<T> {
    const url = this.url(path, query)
    for (let attempt = 1; ; attempt++) {
      const { response, payload } = await this.exchange(method, url, {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      }, body === undefined ? undefined : JSON.stringify(body))
      if (response.ok) {
        // 204 No Content (DELETE): nothing to parse.
        if (response.status === 204) return undefined as T
        if (payload === undefined) throw new ServerError(`${method} ${path}: the answer is not JSON`, response.status, `HTTP_${response.status}`, response.headers.get('x-request-id') ?? undefined, undefined)
        return payload as T
      }
      const error = errorFromResponse(response.status, payload, response.headers)
      const retryable = error instanceof TooManyAttemptsError || error instanceof RateLimitError || error instanceof ServiceUnavailableError
      if (!retryable || attempt >= this.backoff.maxAttempts) throw error
      const delayMs = backoffDelayMs(attempt, error.retryAfterSeconds, this.backoff)
      this.options.onRetry?.({ attempt, delayMs, error })
      await this.sleep(delayMs)
    }
  }

  /** One request and its body; no answer (or a body cut off) becomes a NetworkError naming the URL and the cause. */
  private async exchange (method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<{ response: Response, payload: unknown }> {
    // The signal covers the body too: a server that stalls mid-answer times out as well.
    const signals = [this.options.signal, this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : undefined].filter((signal) => signal !== undefined)
    try {
      const response = await this.fetchImpl(url, { method, headers, body, signal: signals.length > 0 ? AbortSignal.any(signals) : undefined })
      return { response, payload: await readJson(response) }
    } catch (error) {
      // Cancelled by the caller: not a network failure, and nothing to describe.
      if (this.options.signal?.aborted === true) throw error
      throw new NetworkError(method, url, describeNetworkFailure(error, { url, timeoutMs: this.timeoutMs }), error)
    }
  }

  private url (path: string, query: Record<string, QueryValue>): string {
    const url = new URL(this.baseUrl + path)
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue
      url.searchParams.set(name, Array.isArray(value) ? value.join(',') : String(value))
    }
    return url.toString()
  }
}

async function readJson (response: Response): Promise<unknown> {
  const text = await response.text()
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
