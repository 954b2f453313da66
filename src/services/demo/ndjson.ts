import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { finished } from 'node:stream/promises'
import { generateDemoRecords, resolveDemoOptions, type DemoOptions } from './generator.js'
import type { DemoRecordKind } from './records.js'

/** What `demo --out` wrote. */
export interface NdjsonSummary {
  file: string
  counts: Record<DemoRecordKind, number>
  records: number
  bytes: number
}

/** Lines are written in chunks of about this many characters: few syscalls, little memory. */
const CHUNK_CHARS = 256 * 1024

/**
 * Streams the demo records to an NDJSON file, one record per line. Back-pressure is
 * respected: when the stream's buffer is full, generation waits for it to drain, so memory
 * stays flat however large the file.
 */
export async function writeDemoNdjson (options: DemoOptions, file: string): Promise<NdjsonSummary> {
  const resolved = resolveDemoOptions(options)
  const out = createWriteStream(file, { encoding: 'utf8' })
  const counts: Record<DemoRecordKind, number> = { brand: 0, account: 0, daily: 0, post: 0 }
  let records = 0
  let bytes = 0
  let chunk = ''
  const flush = async (): Promise<void> => {
    bytes += Buffer.byteLength(chunk)
    const accepted = out.write(chunk)
    chunk = ''
    // once() also rejects if the stream errors while we wait.
    if (!accepted) await once(out, 'drain')
  }
  try {
    // An unwritable path fails here, before any work is done.
    await once(out, 'open')
    for (const record of generateDemoRecords(resolved)) {
      counts[record.kind]++
      records++
      chunk += JSON.stringify(record) + '\n'
      if (chunk.length >= CHUNK_CHARS) await flush()
    }
    if (chunk.length > 0) await flush()
    out.end()
    await finished(out)
  } catch (error) {
    out.destroy()
    throw error
  }
  return { file, counts, records, bytes }
}
