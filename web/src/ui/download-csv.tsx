import { toCsv, type Row } from '../../../packages/client/src/export/formats.js'

/**
 * "Download CSV" of the rows a view shows, written exactly as `partner-analytics-export` writes
 * the same query, and the command line that writes the same file from a terminal.
 */
export function DownloadCsv ({ rows, filename, exportArgs, note }: { rows: readonly Row[], filename: string, exportArgs: string[], note?: string }) {
  const download = () => {
    const url = URL.createObjectURL(new Blob([toCsv(rows)], { type: 'text/csv;charset=utf-8' }))
    const link = document.createElement('a')
    link.href = url
    link.download = filename
    link.click()
    // The click starts the download synchronously; the object URL can go once it has.
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
  }
  return (
    <div class='download'>
      <button type='button' onClick={download} disabled={rows.length === 0} data-download={filename}>Download CSV</button>
      <p class='hint'>
        {note ?? 'The same file as'} <code data-export-command>partner-analytics-export {exportArgs.join(' ')}</code>
      </p>
    </div>
  )
}
