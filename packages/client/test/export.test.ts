import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { DIALECTS } from '../../../test/helpers/stores.js'
import { runExport } from '../src/export/command.js'
import { DATASET_START, expectedDailyGroups, POST_COUNT, startServer, type RunningServer } from './server.js'

const SINCE = DATASET_START
const UNTIL = '2026-02-09'

/** A writable that keeps what was written; `isTTY` makes it look like a terminal to the command. */
function capture (isTTY = false): PassThrough & { text: () => string, isTTY: boolean } {
  const stream = new PassThrough() as PassThrough & { text: () => string, isTTY: boolean }
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  stream.text = () => Buffer.concat(chunks).toString('utf8')
  stream.isTTY = isTTY
  return stream
}

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
    const exportWith = async (argv: string[], options: { tty?: boolean, env?: Record<string, string | undefined> } = {}) => {
      const stdout = capture()
      const stderr = capture(options.tty ?? false)
      const code = await runExport(argv, { env: options.env ?? env(), stdout, stderr })
      return { code, stdout: stdout.text(), stderr: stderr.text() }
    }

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
      assert.equal(existsSync(`${out}.partial`), false)
      assert.match(result.stderr, new RegExp(`exported ${expected.length} rows to `))
      assert.doesNotMatch(result.stderr, /exporting \[/, 'no progress bar when stderr is not a terminal')
    })

    it('exports daily NDJSON to standard output and agg as a JSON array', async () => {
      const ndjson = await exportWith(['analytics', '--since', SINCE, '--until', UNTIL, '--platform', 'fb', '--format', 'ndjson'])
      assert.equal(ndjson.code, 0, ndjson.stderr)
      const entries = ndjson.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { platform: string })
      assert.ok(entries.length > 20, `only ${entries.length} fb entries: paging not exercised`)
      assert.ok(entries.every((entry) => entry.platform === 'fb'))

      const out = join(dir, 'agg.json')
      const agg = await exportWith(['analytics', '--type', 'agg', '--since', SINCE, '--until', UNTIL, '--format', 'json', '--out', out])
      assert.equal(agg.code, 0, agg.stderr)
      const rows = JSON.parse(readFileSync(out, 'utf8')) as Array<{ brand_id: number, name: string }>
      assert.deepEqual(rows.map((row) => [row.brand_id, row.name]), [[1, 'Acme'], [2, 'Globex']])
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

    it('refuses to run without the key pair in the environment (exit 2)', async () => {
      const out = join(dir, 'nokeys.csv')
      const result = await exportWith(['analytics', '--out', out], { env: { PA_BASE_URL: server.baseUrl } })
      assert.equal(result.code, 2)
      assert.match(result.stderr, /PA_API_CLIENT_KEY and PA_API_SECRET_KEY/)
      assert.equal(existsSync(out), false)
    })

    it('exits 1 with the error code and request id on an API error, leaving no file', async () => {
      const out = join(dir, 'forbidden.csv')
      const result = await exportWith(['analytics', '--brand-id', '4', '--out', out])
      assert.equal(result.code, 1)
      assert.match(result.stderr, /error: FORBIDDEN \(403\): You do not have access to brand_id 4 \[request_id [^\]]+\]/)
      assert.equal(existsSync(out), false)
      assert.equal(existsSync(`${out}.partial`), false)
    })

    it('rejects bad options with exit 2', async () => {
      assert.equal((await exportWith(['analytics', '--format', 'xml'])).code, 2)
      assert.equal((await exportWith(['analytics', '--since', '01/02/2026'])).code, 2)
      assert.equal((await exportWith(['analytics', '--brand-id', '1,x'])).code, 2)
    })
  })
}
