import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import type { PartnerAnalyticsClient } from '../client.js'
import type { ChangesQuery } from '../types.js'
import type { ExportJob } from './jobs.js'
import { OutputError } from './output.js'

/**
 * `partner-analytics-export changes`: the change feed from a cursor to the head, one event per
 * NDJSON line, and the cursor to continue from — on the last line of standard error, and, with
 * `--cursor-file`, stored in that file once every event is written (never before: a failed run
 * leaves the file as it was, so the next run reads those events again). docs/client.md.
 */

export interface ChangesJobOptions {
  /** brand_id, type and limit (the page size). */
  query: Omit<ChangesQuery, 'cursor' | 'start'>
  cursor?: string
  start?: 'latest'
  /** Read the cursor from here when it exists (then `start` is ignored); store the new one here at the end. */
  cursorFile?: string
}

export function changesJob (options: ChangesJobOptions): ExportJob {
  let events = 0
  let next: string | undefined
  return {
    text: async function * (client: PartnerAnalyticsClient) {
      const stored = options.cursorFile === undefined ? undefined : await readCursorFile(options.cursorFile)
      const from = stored !== undefined ? { cursor: stored } : options.cursor !== undefined ? { cursor: options.cursor } : { start: options.start }
      for await (const page of client.changePages({ ...options.query, ...from })) {
        for (const event of page.data) {
          events++
          yield JSON.stringify(event) + '\n'
        }
        next = page.next_cursor
      }
    },
    summary: () => `${events} ${events === 1 ? 'event' : 'events'}`,
    afterWrite: async () => {
      if (options.cursorFile !== undefined && next !== undefined) await writeCursorFile(options.cursorFile, next)
    },
    epilogue: () => next === undefined ? [] : [`next_cursor: ${next}`],
  }
}

/** The cursor a previous run stored, or undefined when the file does not exist or is empty. */
async function readCursorFile (path: string): Promise<string | undefined> {
  try {
    const text = (await readFile(path, 'utf8')).trim()
    return text === '' ? undefined : text
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new OutputError(path, error, 'read')
  }
}

/** Written aside and renamed, so the file always holds one whole cursor. */
async function writeCursorFile (path: string, cursor: string): Promise<void> {
  const partial = `${path}.partial`
  try {
    await writeFile(partial, cursor + '\n', 'utf8')
    await rename(partial, path)
  } catch (error) {
    await rm(partial, { force: true })
    throw new OutputError(path, error)
  }
}
