import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'node:test'
import { EXIT } from '../../src/cli/io.js'
import { runCliCaptured } from '../helpers/cli.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'
import { countRows, emptyStore, FIXTURES, tempFiles, type TempFiles } from './import-helpers.js'

const VALID = join(FIXTURES, 'valid.ndjson')
const INVALID = join(FIXTURES, 'invalid.ndjson')
const SUMMARY = /^Imported 7 records \(1 brand, 2 accounts, 2 daily rows, 2 posts\) in \d+\.\d{3} s, \d+ records\/s$/

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
      const summary = run.json<{ counts: unknown, records: number, seconds: number, rows_per_second: number, dry_run: boolean }>()
      assert.deepEqual(Object.keys(summary).sort(), ['counts', 'dry_run', 'records', 'rows_per_second', 'seconds'])
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

      const option = await cli('import', VALID, '--force')
      assert.equal(option.code, EXIT.USAGE)
      const optionJson = await cli('import', VALID, '--force', '--json')
      assert.equal(optionJson.code, EXIT.USAGE)
      assert.deepEqual(optionJson.json(), { error: { code: 'USAGE_ERROR', message: "unknown option '--force'", exit_code: 2 } })
    })
  })
}
