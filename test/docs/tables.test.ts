import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { globSync } from 'glob'
import { scanTables, itemsOf, cellsOf, type Table } from '../helpers/markdown-tables.js'

/**
 * The Markdown tables of the documentation are whole and say each thing once (issue 27.8: the
 * error-code table of docs/api-reference.md was cut in two by a blank line and had two
 * contradictory 500 and 503 rows; the rate-limit table was split with two `/me` rows that
 * disagreed):
 * - a table row never follows a blank line unless it starts a new table (a header and its `|---|`
 *   line): a renderer shows the rows after the blank line as a paragraph of pipes;
 * - no two rows of a table share a key. A row's key is its first cell; a cell listing several
 *   things (`` `/me`, `/analytics/` ``) gives one key per item, each named by its first code span.
 *   The tables whose rows are keyed by more than their first column are named below with the
 *   columns that make their key. docs/benchmarks.md is a log of measurements, where a run repeats
 *   by design, and is not checked for keys.
 */

const REPO = resolve(fileURLToPath(new URL('../../', import.meta.url)))
const DOCUMENTS = ['README.md', ...globSync('docs/**/*.md', { cwd: REPO, posix: true }).sort(), 'packages/client/README.md', 'clients/python/README.md']
const NOT_KEYED = new Set(['docs/benchmarks.md'])

/** Tables keyed by their first N columns, by their header line. */
const KEY_COLUMNS: Record<string, number> = {
  '| platform | account | brand | date | views | reach | interactions | followers | new_followers | posts | revenue (micros) |': 4,
  '| what | store | rate (daily rows/s, whole command) | against the store\'s loader, same run | peak RSS |': 2,
  '| status | error_code | detail | when |': 3,
  '| `type` | parameter | `ctx` |': 2,
  '| method | path | authentication | rate limited |': 2,
  '| method | path | success |': 2,
  '| method | path | answer |': 2,
  '| store | setting | value | bounds |': 2,
  '| exit | meaning | standard error |': 2,
  '| kind | metrics | with `gaps=carry` |': 2,
}

/** The keys of a row: its first columns' texts and each item of the last of them. */
function keysOf (cells: string[], columns: number): string[] {
  const fixed = cells.slice(0, columns - 1).join(' | ')
  return itemsOf(cells[columns - 1] ?? '').map((item) => `${fixed}${fixed === '' ? '' : ' | '}${item}`)
}

function duplicateKeys (table: Table): string[] {
  const columns = KEY_COLUMNS[table.header] ?? 1
  const seen = new Map<string, number>()
  const found: string[] = []
  for (const row of table.rows) {
    for (const key of keysOf(row.cells, columns)) {
      const first = seen.get(key)
      if (first !== undefined) found.push(`"${key}" on lines ${first} and ${row.line}`)
      else seen.set(key, row.line)
    }
  }
  return found
}

describe('documentation tables', () => {
  it('finds a table cut by a blank line and a key given twice, as in the error-code table before', () => {
    const cut = '| code | status |\n|---|---|\n| `A` | 1 |\n\n| `B` | 2 |\n'
    assert.deepEqual(scanTables(cut).strays, [{ line: 5, text: '| `B` | 2 |' }])
    const twoTables = '| a | b |\n|---|---|\n| 1 | 2 |\n\n| c | d |\n|---|---|\n| 3 | 4 |\n'
    assert.deepEqual(scanTables(twoTables).strays, [])
    assert.equal(scanTables(twoTables).tables.length, 2)
    const twice = scanTables('| route | windows |\n|---|---|\n| `/me`, `/posts` | 600 |\n| `/me`, `/webhooks…` | 60 |\n').tables[0] as Table
    assert.deepEqual(duplicateKeys(twice), ['"/me" on lines 3 and 4'])
    assert.deepEqual(cellsOf('| `a|b` | c \\| d |'), ['`a|b`', 'c | d'])
  })

  for (const document of DOCUMENTS) {
    it(`${document}: no table is cut by a blank line, and no key has two rows`, () => {
      const { tables, strays } = scanTables(readFileSync(resolve(REPO, document), 'utf8'))
      assert.deepEqual(strays.map((stray) => `line ${stray.line}: ${stray.text}`), [], 'table rows after a blank line, outside any table')
      if (NOT_KEYED.has(document)) return
      assert.deepEqual(tables.flatMap((table) => duplicateKeys(table).map((found) => `table at line ${table.line}: ${found}`)), [])
    })
  }
})
