/**
 * The hand-written half of bench/exports.ts's reference pipeline: DuckDB (@duckdb/node-api, its
 * default settings: every core, 80 % of memory) reads CSV with a header line from standard input
 * (the store's own dump piped in) and writes it with `COPY … TO … (FORMAT parquet)`.
 *
 *   sqlite3 -csv -header DB "select …" | node bench/csv-to-parquet.mjs OUT.parquet COLUMNS_JSON [COMPRESSION]
 *
 * COLUMNS_JSON maps each column to its DuckDB type, in the CSV's order ({"date": "DATE", …}); an
 * empty cell is NULL. Prints the rows written. Plain JavaScript: no TypeScript loader to start.
 */
import { DuckDBInstance } from '@duckdb/node-api'

const [out, columnsJson, compression = 'zstd'] = process.argv.slice(2)
if (out === undefined || columnsJson === undefined || !/^[a-z]+$/.test(compression)) {
  console.error('usage: node bench/csv-to-parquet.mjs OUT.parquet COLUMNS_JSON [zstd|snappy]')
  process.exit(2)
}
const columns = Object.entries(JSON.parse(columnsJson))
  .map(([name, type]) => `'${name.replaceAll('\'', '\'\'')}': '${String(type).replaceAll('\'', '\'\'')}'`).join(', ')
const instance = await DuckDBInstance.create(':memory:')
const connection = await instance.connect()
const reader = await connection.runAndReadAll(
  `copy (select * from read_csv('/dev/stdin', header = true, columns = {${columns}})) to '${out.replaceAll('\'', '\'\'')}' (format parquet, compression ${compression})`)
console.log(String(reader.getRows()[0]?.[0] ?? 0))
connection.closeSync()
instance.closeSync()
