import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { readFileSync } from 'node:fs'
import { summaryLine } from '../../src/cli/commands/import.js'
import { EXIT } from '../../src/cli/io.js'
import type { ChangeCounts, Sync } from '../../src/domain/syncs.js'
import type { ImportSummary } from '../../src/services/import/import.service.js'
import { runCliCaptured } from '../helpers/cli.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { countRows, emptyStore, FIXTURES, tempFiles, type TempFiles } from './import-helpers.js'

const VALID = join(FIXTURES, 'valid.ndjson')
const INVALID = join(FIXTURES, 'invalid.ndjson')
const SUMMARY = /^Imported 7 records \(1 brand, 2 accounts, 2 daily rows, 2 posts\) in \d+\.\d{3} s, \d+ records\/s as sync \d+: 1 brand created, 2 accounts created, 2 daily rows inserted, 2 posts added$/

for (const dialect of DIALECTS) {
  describe(`partner-analytics import (${dialect})`, () => {
    let testStore: TestStore
    let files: TempFiles
    let env: Record<string, string>
    const cli = async (...argv: string[]) => await runCliCaptured(argv, env)

    before(async () => {
      testStore = await createTestStore(dialect)
      files = tempFiles()
      env = { DATABASE_URL: testStore.databaseUrl, JWT_SECRET: 'import-cli-test-secret-0123456789abcdef' }
    })
    after(async () => {
      await testStore.cleanup()
      files.cleanup()
    })
    beforeEach(async () => { await emptyStore(testStore.store) })

    it('imports a valid file: exit 0, one summary line on stderr, nothing on stdout', async () => {
      const run = await cli('import', VALID)
      assert.equal(run.code, EXIT.OK, run.stderr)
      assert.equal(run.stdout, '')
      const lines = run.stderr.trimEnd().split('\n')
      assert.equal(lines.length, 1)
      assert.match(lines[0] ?? '', SUMMARY)
      assert.deepEqual(await countRows(testStore.store), { brands: 1, accounts: 2, daily: 2, posts: 2 })
    })

    it('--json prints the summary object on stdout', async () => {
      const run = await cli('import', VALID, '--json')
      assert.equal(run.code, EXIT.OK, run.stderr)
      const summary = run.json<{ counts: unknown, records: number, seconds: number, rows_per_second: number, dry_run: boolean, sync_id: number, changed: unknown }>()
      assert.deepEqual(Object.keys(summary), ['counts', 'records', 'seconds', 'rows_per_second', 'dry_run', 'sync_id', 'changed'])
      assert.ok(Number.isSafeInteger(summary.sync_id) && summary.sync_id > 0)
      assert.deepEqual(summary.changed, { brand: { created: 1, renamed: 0 }, account: { created: 2, updated: 0, moved: 0 }, daily: { inserted: 2, changed: 0 }, post: { added: 2, changed: 0 } })
      assert.deepEqual(summary.counts, { brand: 1, account: 2, daily: 2, post: 2 })
      assert.equal(summary.records, 7)
      assert.equal(summary.dry_run, false)
      assert.ok(summary.seconds >= 0 && summary.rows_per_second > 0)
    })

    it('--dry-run validates, exits 0 and writes nothing', async () => {
      const run = await cli('import', '--dry-run', VALID)
      assert.equal(run.code, EXIT.OK, run.stderr)
      assert.match(run.stderr, /^Dry run, nothing written: validated 7 records \(1 brand, 2 accounts, 2 daily rows, 2 posts\) in /)
      assert.deepEqual(await countRows(testStore.store), { brands: 0, accounts: 0, daily: 0, posts: 0 })
    })

    it('an invalid file: exit 1, each error on its own stderr line, then the verdict; nothing written', async () => {
      const other = files.write('other.ndjson', '{"kind":"brand","brand_id":-1,"brand_name":"X"}\n')
      for (const flags of [[], ['--dry-run']]) {
        const run = await cli('import', ...flags, INVALID, other, '--json')
        assert.equal(run.code, EXIT.FAILURE)
        const lines = run.stderr.trimEnd().split('\n')
        // --json: one error object on stdout, the same FILE:LINE lines as an array.
        assert.deepEqual(run.json(), {
          error: { code: 'IMPORT_REJECTED', message: 'import rejected: 16 errors; nothing was written', exit_code: 1, errors: lines.slice(0, 16) },
        })
        assert.equal(lines.length, 17)
        assert.equal(lines[0], `${INVALID}:3: date must be a real calendar date YYYY-MM-DD (got "2026-02-30")`)
        assert.ok(lines.slice(0, 16).every((line) => /^\S+:\d+: /.test(line)), lines.join('\n'))
        assert.ok(lines.includes(`${other}:1: brand_id must be a positive integer (got -1)`))
        assert.equal(lines[16], 'error: import rejected: 16 errors; nothing was written')
      }
      assert.deepEqual(await countRows(testStore.store), { brands: 0, accounts: 0, daily: 0, posts: 0 })
    })

    it('usage errors exit 2: no file, a missing file, an unknown option', async () => {
      const none = await cli('import')
      assert.equal(none.code, EXIT.USAGE)
      assert.match(none.stderr, /missing required argument 'files'/)

      const missing = join(files.dir, 'nope.ndjson')
      const run = await cli('import', VALID, missing)
      assert.equal(run.code, EXIT.USAGE)
      assert.equal(run.stderr, `error: cannot read ${missing}: no such file\n`)
      assert.equal(run.stdout, '')
      const json = await cli('import', VALID, missing, '--json')
      assert.equal(json.code, EXIT.USAGE)
      assert.deepEqual(json.json(), { error: { code: 'VALIDATION_ERROR', message: `cannot read ${missing}: no such file`, exit_code: 2 } })
      assert.deepEqual(await countRows(testStore.store), { brands: 0, accounts: 0, daily: 0, posts: 0 })

      // A relative name: the absolute path it was looked for at.
      const relative = await cli('import', 'nope-relative.ndjson')
      assert.equal(relative.code, EXIT.USAGE)
      assert.equal(relative.stderr, `error: cannot read nope-relative.ndjson (looked for ${join(process.cwd(), 'nope-relative.ndjson')}): no such file\n`)

      const option = await cli('import', VALID, '--force')
      assert.equal(option.code, EXIT.USAGE)
      const optionJson = await cli('import', VALID, '--force', '--json')
      assert.equal(optionJson.code, EXIT.USAGE)
      assert.deepEqual(optionJson.json(), { error: { code: 'USAGE_ERROR', message: "unknown option '--force'", exit_code: 2 } })
    })
  })
}

describe('partner-analytics import under `npm run cli` from a subfolder', () => {
  it('names the absolute path it tried, says npm runs scripts from the package root, and where the file is', async () => {
    const repo = process.cwd()
    // What a newcomer types: the file next to them, npm run from their folder inside the checkout.
    const child = spawn('npm', ['run', '-s', 'cli', '--', 'import', '--dry-run', 'valid.ndjson'], { cwd: FIXTURES, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000, env: { ...process.env, DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' } })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    child.stdout.resume()
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    assert.equal(code, EXIT.USAGE, stderr)
    assert.ok(stderr.endsWith(`error: cannot read valid.ndjson (looked for ${join(repo, 'valid.ndjson')}): no such file; ` +
      `npm runs scripts from the package root (${repo}), not from ${FIXTURES} where npm was started: give the path ${VALID}\n`), stderr)
  })
})

describe('docs/import.md', () => {
  it('shows the summary line the command prints for the --json summary it shows', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'import.md'), 'utf8')
    const line = /^`(Imported [^`]*)`$/m.exec(doc)?.[1]
    const json = /^`(\{"counts":[^`]*)`\.$/m.exec(doc)?.[1]
    assert.ok(line !== undefined && json !== undefined, 'the summary line and its --json object')
    const shown = JSON.parse(json) as { counts: ImportSummary['counts'], records: number, seconds: number, rows_per_second: number, dry_run: boolean, sync_id: number, changed: ChangeCounts }
    // Only the sync's id and changes are shown by the line; the rest of the sync is not.
    const sync = { syncId: shown.sync_id, counts: { read: shown.counts, changed: shown.changed } } as unknown as Sync
    assert.equal(summaryLine({ counts: shown.counts, records: shown.records, seconds: shown.seconds, rowsPerSecond: shown.rows_per_second, dryRun: shown.dry_run, sync }), line)
  })
})
