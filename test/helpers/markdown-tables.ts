/**
 * The Markdown tables of a document, as the docs tests read them (test/docs/tables.test.ts,
 * test/docs/endpoint-overview.test.ts): outside fenced code, a header line followed by its
 * `|---|` line, then its rows.
 */

export interface Table {
  /** 1-based line of its header. */
  line: number
  header: string
  /** Its body rows, each with its line and cells. */
  rows: Array<{ line: number, cells: string[] }>
}

/** The cells of a table line: split on pipes outside code spans and not escaped. */
export function cellsOf (line: string): string[] {
  const cells: string[] = []
  let cell = ''
  let code = false
  const text = line.trim().replace(/^\|/, '').replace(/\|$/, '')
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string
    if (char === '\\' && text[i + 1] === '|') { cell += '|'; i++; continue }
    if (char === '`') code = !code
    if (char === '|' && !code) { cells.push(cell.trim()); cell = ''; continue }
    cell += char
  }
  cells.push(cell.trim())
  return cells
}

const DELIMITER = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/

interface Scan { tables: Table[], strays: Array<{ line: number, text: string }> }

/** The tables outside fenced code, and the table rows that follow a blank line without starting a table. */
export function scanTables (markdown: string): Scan {
  const lines = markdown.split('\n')
  const tables: Table[] = []
  const strays: Scan['strays'] = []
  let fence: string | undefined
  let current: Table | undefined
  let afterTable = false
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index] as string
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1]
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined
      current = undefined
      afterTable = false
      continue
    }
    if (fence !== undefined) continue
    const isRow = text.trimStart().startsWith('|')
    if (isRow && current !== undefined) {
      current.rows.push({ line: index + 1, cells: cellsOf(text) })
      continue
    }
    if (isRow && DELIMITER.test(lines[index + 1] ?? '')) {
      current = { line: index + 1, header: text.trim(), rows: [] }
      tables.push(current)
      index++
      continue
    }
    if (isRow) {
      if (afterTable) {
        strays.push({ line: index + 1, text })
        // Read as the rest of the table it was cut from, so a key it repeats is found too.
        tables.at(-1)?.rows.push({ line: index + 1, cells: cellsOf(text) })
      }
      continue
    }
    if (current !== undefined) afterTable = true
    if (text.trim() !== '') afterTable = false
    current = undefined
  }
  return { tables, strays }
}

/** The items a cell names: its comma-separated parts outside code spans, each by its first code span, when each has one; else the cell. */
export function itemsOf (cell: string): string[] {
  const parts: string[] = []
  let part = ''
  let code = false
  for (const char of cell) {
    if (char === '`') code = !code
    if (char === ',' && !code) { parts.push(part); part = ''; continue }
    part += char
  }
  parts.push(part)
  // A list only when every part names something in code (`/me`, `/posts`); prose with commas is one key.
  if (parts.length < 2 || !parts.every((item) => /`[^`]+`/.test(item))) return [cell.trim()]
  return parts.map((item) => /`([^`]+)`/.exec(item)?.[1] ?? '')
}
