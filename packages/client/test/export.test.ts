import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DIALECTS } from '../../../test/helpers/stores.js'
import { csvCell } from '../src/export/formats.js'
import { PartnerAnalyticsClient, type AggReport } from '../src/index.js'
import { closedPort, literal, runCaptured, silentServer } from './export-helpers.js'
import { insertPosts, postRow } from '../../../test/posts/posts-fixtures.js'
import { DATASET_START, expectedDailyGroups, POST_COUNT, recordingFetch, startServer, type RunningServer } from './server.js'

const SINCE = DATASET_START
const UNTIL = '2026-02-09'
const KEYS = { PA_API_CLIENT_KEY: 'pak_000000000000000000000000', PA_API_SECRET_KEY: 'pas_0000000000000000000000000000000000000000000' }

for (const dialect of DIALECTS) {
  describe(`partner-analytics-export against a running server (${dialect})`, () => {
    let server: RunningServer
    let dir: string

    before(async () => {
      server = await startServer(dialect)
      dir = mkdtempSync(join(tmpdir(), 'pa-export-'))
    })
    after(async () => {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    })

    const env = () => ({ PA_API_CLIENT_KEY: server.partner.clientKey, PA_API_SECRET_KEY: server.partner.secretKey, PA_BASE_URL: server.baseUrl })
    const exportWith = async (argv: string[], options: { tty?: boolean, env?: Record<string, string | undefined>, fetch?: typeof fetch, signal?: AbortSignal } = {}) =>
      await runCaptured(argv, { ...options, env: options.env ?? env() })
    /** The agg envelope as the API itself returns it, to compare the export with. */
    const aggFromApi = async (): Promise<AggReport> => await new PartnerAnalyticsClient({
      baseUrl: server.baseUrl, clientKey: server.partner.clientKey, secretKey: server.partner.secretKey,
    }).analytics({ type: 'agg', since: SINCE, until: UNTIL })
    /** Nothing but what the test expects is left in the directory: no FILE.partial. */
    const assertNoPartialFiles = () => { assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith('.partial')), []) }

    it('exports every daily page to CSV: one row per (date, brand) group, header first', async () => {
      const out = join(dir, 'daily.csv')
      const result = await exportWith(['analytics', '--type', 'daily', '--since', SINCE, '--until', UNTIL, '--format', 'csv', '--out', out])
      assert.equal(result.code, 0, result.stderr)
      const lines = readFileSync(out, 'utf8').trimEnd().split('\r\n')
      const header = (lines[0] ?? '').split(',')
      assert.deepEqual(header.slice(0, 2), ['date', 'brand_id'])
      const expected = expectedDailyGroups(server.dataset, [1, 2], SINCE, UNTIL)
      assert.equal(lines.length - 1, expected.length)
      const dateColumn = header.indexOf('date')
      const brandColumn = header.indexOf('brand_id')
      const groups = lines.slice(1).map((line) => { const cells = line.split(','); return `${cells[dateColumn]}|${cells[brandColumn]}` })
      assert.deepEqual(groups.sort(), expected)
      assertNoPartialFiles()
      assert.equal(result.stderr, `exported ${expected.length} rows to ${out}\n`, 'no progress bar when stderr is not a terminal')
    })

    it('exports daily NDJSON to standard output, across pages', async () => {
      const result = await exportWith(['analytics', '--since', SINCE, '--until', UNTIL, '--platform', 'fb', '--format', 'ndjson'])
      assert.equal(result.code, 0, result.stderr)
      const entries = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { platform: string })
      assert.ok(entries.length > 20, `only ${entries.length} fb entries: paging not exercised`)
      assert.ok(entries.every((entry) => entry.platform === 'fb'))
      assert.equal(result.stderr, `exported ${entries.length} rows to standard output\n`)
    })

    it('agg as JSON is the API envelope, aggregates included', async () => {
      const out = join(dir, 'agg.json')
      const result = await exportWith(['analytics', '--type', 'agg', '--since', SINCE, '--until', UNTIL, '--format', 'json', '--out', out])
      assert.equal(result.code, 0, result.stderr)
      const written = JSON.parse(readFileSync(out, 'utf8')) as AggReport
      assert.deepEqual(written, await aggFromApi())
      assert.deepEqual(written.data.map((entry) => [entry.brand_id, entry.name]), [[1, 'Acme'], [2, 'Globex']])
      assert.deepEqual(Object.keys(written.aggregates ?? {}), ['total', 'average'])
      assert.equal(result.stderr, `exported 2 rows and the aggregates (total, average) to ${out}\n`)
    })

    it('agg as CSV ends with a total and an average row, marked in the first column', async () => {
      const out = join(dir, 'agg.csv')
      const result = await exportWith(['analytics', '--type', 'agg', '--since', SINCE, '--until', UNTIL, '--format', 'csv', '--out', out])
      assert.equal(result.code, 0, result.stderr)
      const api = await aggFromApi()
      const lines = readFileSync(out, 'utf8').split('\r\n')
      assert.equal(lines.pop(), '', 'the file ends with CRLF')
      const header = (lines[0] ?? '').split(',')
      assert.equal(header[0], 'aggregate')
      const line = (label: string, values: Record<string, unknown>) => header.map((column) => column === 'aggregate' ? label : csvCell(values[column])).join(',')
      assert.deepEqual(lines.slice(1), [
        ...api.data.map((entry) => line('', entry)),
        line('total', api.aggregates?.total ?? {}),
        line('average', api.aggregates?.average ?? {}),
      ])
      assert.match(lines.at(-2) ?? '', /^total,,,/, 'brand_id and name are empty on the total row')
    })

    it('agg as NDJSON ends with the total and average records', async () => {
      const result = await exportWith(['analytics', '--type', 'agg', '--since', SINCE, '--until', UNTIL, '--format', 'ndjson'])
      assert.equal(result.code, 0, result.stderr)
      const api = await aggFromApi()
      const records = result.stdout.trimEnd().split('\n').map((text) => JSON.parse(text) as Record<string, unknown>)
      assert.deepEqual(records, [
        ...api.data.map((entry) => ({ aggregate: null, ...entry })),
        { aggregate: 'total', ...api.aggregates?.total },
        { aggregate: 'average', ...api.aggregates?.average },
      ])
    })

    it('exports every post across pages', async () => {
      const out = join(dir, 'posts.ndjson')
      const result = await exportWith(['posts', '--since', SINCE, '--until', UNTIL, '--page-size', '9', '--format', 'ndjson', '--out', out])
      assert.equal(result.code, 0, result.stderr)
      const ids = readFileSync(out, 'utf8').trimEnd().split('\n').map((line) => (JSON.parse(line) as { id: string }).id)
      assert.equal(ids.length, POST_COUNT)
      assert.equal(new Set(ids).size, POST_COUNT)
    })

    it('draws a progress bar when stderr is a terminal', async () => {
      const result = await exportWith(['analytics', '--since', SINCE, '--until', UNTIL, '--format', 'ndjson', '--out', join(dir, 'tty.ndjson')], { tty: true })
      assert.equal(result.code, 0, result.stderr)
      assert.match(result.stderr, /exporting \[/)
      assert.match(result.stderr, /100% \| 40\/40 days/)
    })

    it('exits 1 with the error code and request id on an API error, leaving no file', async () => {
      const out = join(dir, 'forbidden.csv')
      const result = await exportWith(['analytics', '--brand-id', '4', '--out', out])
      assert.equal(result.code, 1)
      assert.match(result.stderr, /^error: FORBIDDEN \(403\): You do not have access to brand_id 4 \[request_id [0-9a-f-]{36}\]\n$/)
      assert.equal(existsSync(out), false)
      assertNoPartialFiles()
    })

    it('a connection lost after the first page: the URL and cause are named, the partial file is removed', async () => {
      const out = join(dir, 'cut.ndjson')
      let requests = 0
      const flaky: typeof fetch = async (input, init) => {
        // login, page 1, then the connection drops on page 2, the way undici reports it.
        if (++requests === 3) throw new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) })
        return await fetch(input, init)
      }
      const result = await exportWith(['analytics', '--since', SINCE, '--until', UNTIL, '--format', 'ndjson', '--out', out], { fetch: flaky })
      assert.equal(result.code, 1)
      assert.match(result.stderr, new RegExp(`^error: GET ${literal(server.baseUrl)}/analytics/\\?type=daily&since=${SINCE}&until=${UNTIL}&cursor=[\\w.-]+ failed: connection closed by the other side \\(ECONNRESET\\); check PA_BASE_URL\\n$`))
      assert.equal(existsSync(out), false)
      assertNoPartialFiles()
    })

    it('an interruption (Ctrl-C) mid-export exits 130 and removes the partial file', async () => {
      const out = join(dir, 'interrupted.csv')
      const controller = new AbortController()
      let requests = 0
      let interruptedRequest: Promise<Response> | undefined
      const interrupting: typeof fetch = async (input, init) => {
        if (++requests !== 3) return await fetch(input, init)
        controller.abort()
        interruptedRequest = fetch(input, init)
        return await interruptedRequest
      }
      const result = await exportWith(['analytics', '--since', SINCE, '--until', UNTIL, '--out', out], { fetch: interrupting, signal: controller.signal })
      assert.equal(result.code, 130)
      assert.equal(result.stderr, `error: export interrupted; ${out} was not written\n`)
      assert.equal(existsSync(out), false)
      assertNoPartialFiles()
      // The request in flight is aborted too, rather than left running after the export stopped.
      await assert.rejects(interruptedRequest ?? Promise.resolve(), { name: 'AbortError' })
    })

    it('an unwritable --out fails before any request is sent', async () => {
      const out = join(dir, 'missing-dir', 'x.csv')
      const recorder = recordingFetch()
      const result = await exportWith(['analytics', '--out', out], { fetch: recorder.fetch })
      assert.equal(result.code, 1)
      assert.equal(result.stderr, `error: cannot write ${out}.partial (ENOENT: no such file or directory)\n`)
      assert.deepEqual(recorder.calls, [])
    })

    it('https:// to a plain-HTTP port is named as a TLS failure', async () => {
      const httpsUrl = server.baseUrl.replace('http://', 'https://')
      const result = await exportWith(['analytics', '--out', join(dir, 'tls.csv')], { env: { ...env(), PA_BASE_URL: httpsUrl } })
      assert.equal(result.code, 1)
      assert.equal(result.stderr, `error: POST ${httpsUrl}/auth/login failed: TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER: the server may not speak HTTPS on this port); check PA_BASE_URL\n`)
      assertNoPartialFiles()
    })

    it('writes CSV cells holding commas, quotes and line breaks quoted as RFC 4180 says, to standard output with --out -', async () => {
      // Three posts of their own day (fb 100, brand 1), with texts a spreadsheet must not split.
      await insertPosts(server.testStore.store.db, [
        postRow('fb', 'q1', 100, '2026-03-15T08:00:00Z', { title: 'Launch, part 1', views: 10 }),
        postRow('fb', 'q2', 100, '2026-03-15T09:00:00Z', { title: 'He said "hi"', description: 'a "quoted", comma' }),
        postRow('fb', 'q3', 100, '2026-03-15T10:00:00Z', { title: 'two\nlines', description: 'plain' }),
      ])
      const result = await exportWith(['posts', '--since', '2026-03-15', '--until', '2026-03-15', '--order', 'asc', '--format', 'csv', '--out', '-'])
      assert.equal(result.code, 0, result.stderr)
      assert.equal(result.stderr, 'exported 3 rows to standard output\n')
      assert.equal(existsSync(join(process.cwd(), '-')), false, 'no file named -')
      const link = ',https://example.com/fb/'
      assert.equal(result.stdout, [
        'id,platform,account_id,account_name,brand_id,created_time,type,post_type,title,description,permalink,thumbnail_url,views,likes,comments,shares,reach,impressions,interactions,total_interactions,revenue,engagement_rate',
        `q1,facebook,100,fb account 100,1,2026-03-15T08:00:00Z,,other,"Launch, part 1",${link}q1,,10,,,,,,,,,`,
        `q2,facebook,100,fb account 100,1,2026-03-15T09:00:00Z,,other,"He said ""hi""","a ""quoted"", comma"${link}q2,,,,,,,,,,,`,
        `q3,facebook,100,fb account 100,1,2026-03-15T10:00:00Z,,other,"two\nlines",plain${link}q3,,,,,,,,,,,`,
        '',
      ].join('\r\n'))
    })

    it('says "1 row" for an export of one row, and "1 row and the aggregates" for an agg of one entry', async () => {
      // January of brand 1: one monthly entry.
      const one = await exportWith(['analytics', '--type', 'monthly', '--since', SINCE, '--until', '2026-01-31', '--brand-id', '1', '--format', 'ndjson'])
      assert.equal(one.code, 0, one.stderr)
      assert.equal(one.stdout.trimEnd().split('\n').length, 1)
      assert.equal(one.stderr, 'exported 1 row to standard output\n')
      const agg = await exportWith(['analytics', '--type', 'agg', '--since', SINCE, '--until', UNTIL, '--brand-id', '1', '--format', 'ndjson'])
      assert.equal(agg.code, 0, agg.stderr)
      assert.equal(agg.stderr, 'exported 1 row and the aggregates (total, average) to standard output\n')
    })

    it('writes an empty export as the format\'s empty file: nothing for CSV and NDJSON, [] for JSON', async () => {
      // A period with no data at all.
      const query = ['--since', '2020-01-01', '--until', '2020-01-31']
      for (const [command, format, expected] of [
        ['analytics', 'csv', ''], ['analytics', 'ndjson', ''], ['analytics', 'json', '[]\n'],
        ['posts', 'csv', ''], ['posts', 'ndjson', ''], ['posts', 'json', '[]\n'],
      ] as const) {
        const toStdout = await exportWith([command, ...query, '--format', format])
        assert.deepEqual([toStdout.code, toStdout.stdout, toStdout.stderr], [0, expected, 'exported 0 rows to standard output\n'], `${command} ${format}`)
        const out = join(dir, `empty-${command}.${format}`)
        const toFile = await exportWith([command, ...query, '--format', format, '--out', out])
        assert.deepEqual([toFile.code, toFile.stdout, toFile.stderr], [0, '', `exported 0 rows to ${out}\n`], `${command} ${format} to a file`)
        assert.equal(readFileSync(out, 'utf8'), expected, `${command} ${format} file`)
      }
      assertNoPartialFiles()
    })

    it('rejects bad options with exit 2', async () => {
      assert.equal((await exportWith(['analytics', '--format', 'xml'])).code, 2)
      assert.equal((await exportWith(['analytics', '--since', '01/02/2026'])).code, 2)
      assert.equal((await exportWith(['analytics', '--brand-id', '1,x'])).code, 2)
      assert.equal((await exportWith(['analytics', '--timeout', '-1'])).code, 2)
    })

    it('refuses a --page-size outside 1 to 50 with exit 2, naming the option, before any request', async () => {
      for (const value of ['0', '51', '2.5', 'ten', '-3', '']) {
        const recorder = recordingFetch()
        const result = await exportWith(['posts', '--page-size', value], { fetch: recorder.fetch })
        assert.deepEqual([result.code, result.stdout, result.stderr], [2, '', `error: option '--page-size <n>' argument '${value}' is invalid. expected an integer from 1 to 50\n`], value)
        assert.deepEqual(recorder.calls, [], value)
      }
      const edges = await exportWith(['posts', '--since', SINCE, '--until', UNTIL, '--page-size', '50', '--format', 'ndjson'])
      assert.equal(edges.code, 0, edges.stderr)
      assert.equal(edges.stdout.trimEnd().split('\n').length, POST_COUNT)
    })
  })
}

describe('partner-analytics-export settings and unreachable servers', () => {
  let dir: string
  before(() => { dir = mkdtempSync(join(tmpdir(), 'pa-export-env-')) })
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  const exportTo = async (env: Record<string, string | undefined>, extra: string[] = []) => {
    const out = join(dir, 'out.csv')
    const result = await runCaptured(['analytics', '--out', out, ...extra], { env })
    assert.equal(existsSync(out), false)
    assert.equal(existsSync(`${out}.partial`), false)
    return result
  }

  it('requires PA_BASE_URL: no silent localhost default (exit 2)', async () => {
    const result = await exportTo({ ...KEYS })
    assert.deepEqual(result, { code: 2, stdout: '', stderr: 'error: PA_BASE_URL is not set; set it to the API\'s base URL, e.g. PA_BASE_URL=https://api.example.com\n' })
  })

  it('validates PA_BASE_URL by name and shows the value (exit 2)', async () => {
    for (const value of ['127.0.0.1:18401', 'localhost:8000', 'ftp://example.com']) {
      const result = await exportTo({ ...KEYS, PA_BASE_URL: value })
      assert.deepEqual(result, { code: 2, stdout: '', stderr: `error: PA_BASE_URL must be an absolute http:// or https:// URL, e.g. https://api.example.com (got "${value}")\n` })
    }
    const query = await exportTo({ ...KEYS, PA_BASE_URL: 'https://api.example.com/?x=1' })
    assert.equal(query.stderr, 'error: PA_BASE_URL must not have a query (?…) or fragment (#…) (got "https://api.example.com/?x=1")\n')
    const secret = await exportTo({ ...KEYS, PA_BASE_URL: 'https://me:hunter2@api.example.com' })
    assert.equal(secret.stderr, 'error: PA_BASE_URL must not contain a user name or password (got "https://***@api.example.com/")\n', 'the password is not echoed')
  })

  it('names each missing key, with every problem on its own line (exit 2)', async () => {
    const result = await exportTo({ PA_API_SECRET_KEY: KEYS.PA_API_SECRET_KEY, PA_BASE_URL: 'nope' })
    assert.equal(result.code, 2)
    assert.equal(result.stderr, [
      'error: PA_BASE_URL must be an absolute http:// or https:// URL, e.g. https://api.example.com (got "nope")',
      'error: PA_API_CLIENT_KEY is not set; the key pair is read from the environment only, never from the command line',
      '',
    ].join('\n'))
    const none = await exportTo({ PA_BASE_URL: 'http://127.0.0.1:8000' })
    assert.equal(none.stderr, 'error: PA_API_CLIENT_KEY and PA_API_SECRET_KEY are not set; the key pair is read from the environment only, never from the command line\n')
  })

  it('connection refused: the URL, the cause and the address (exit 1)', async () => {
    const port = await closedPort()
    const result = await exportTo({ ...KEYS, PA_BASE_URL: `http://127.0.0.1:${port}` })
    assert.deepEqual(result, { code: 1, stdout: '', stderr: `error: POST http://127.0.0.1:${port}/auth/login failed: connection refused (ECONNREFUSED 127.0.0.1:${port}); check PA_BASE_URL\n` })
  })

  it('port 1, which fetch never connects to, is explained rather than "fetch failed"', async () => {
    const result = await exportTo({ ...KEYS, PA_BASE_URL: 'http://127.0.0.1:1' })
    assert.deepEqual(result, { code: 1, stdout: '', stderr: 'error: POST http://127.0.0.1:1/auth/login failed: fetch refuses to connect to port 1 (a "bad port" of the Fetch standard); check PA_BASE_URL\n' })
  })

  it('a server that never answers times out after --timeout seconds (exit 1)', async () => {
    const silent = await silentServer()
    try {
      const started = Date.now()
      const result = await exportTo({ ...KEYS, PA_BASE_URL: silent.baseUrl }, ['--timeout', '0.5'])
      assert.deepEqual(result, { code: 1, stdout: '', stderr: `error: POST ${silent.baseUrl}/auth/login failed: no answer within 0.5 s (timeout); check PA_BASE_URL\n` })
      assert.ok(Date.now() - started < 5000, 'the timeout bounded the wait')
    } finally {
      await silent.close()
    }
  })
})
