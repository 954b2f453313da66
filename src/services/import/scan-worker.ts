import { parentPort, workerData } from 'node:worker_threads'
import { fileSource } from './file-source.js'
import { References, scanSources, type ScanSink } from './scan.js'
import type { DailyColumns } from '../../storage/repositories/import-writer.types.js'
import { DailyColumnsBuilder, type ScanAck, type ScanItem, type ScanMessage } from './scan-batches.js'
import type { ScanWorkerData } from './scan-in-worker.js'

/**
 * The import's reading thread (scan-in-worker.ts): reads and validates the files (scan.ts) and
 * posts what it found in batches, at most MAX_IN_FLIGHT unacknowledged, so that memory stays
 * flat however far reading runs ahead of writing.
 */

/** Records (or errors) per batch. */
const BATCH = 4096
/** Batches posted and not yet taken by the writing thread. */
const MAX_IN_FLIGHT = 4

const port = parentPort
if (port === null) throw new Error('scan-worker.ts runs as a worker thread')
const data = workerData as ScanWorkerData

let inFlight = 0
const waiting: Array<() => void> = []
/** Columns the writing thread is done with (at most a batch's worth in flight each). */
const spare: DailyColumns[] = []
port.on('message', (ack: ScanAck) => {
  spare.push(...ack.spare)
  inFlight -= 1
  if (inFlight < MAX_IN_FLIGHT) for (const resume of waiting.splice(0)) resume()
})

/** Undefined while fewer than MAX_IN_FLIGHT batches are unacknowledged, else a promise of room. */
function room (): Promise<void> | undefined {
  return inFlight < MAX_IN_FLIGHT ? undefined : new Promise((resolve) => waiting.push(resolve))
}

let items: ScanItem[] = []
let daily: DailyColumnsBuilder | undefined
/** Records and errors in the batch being filled. */
let size = 0
/** Records read so far, at the last progress mark. */
let read = 0

/** Buffers of the columns in `items`, transferred with them. */
let transfer: ArrayBuffer[] = []

/** Ends the daily run being filled: its columns take their place in the batch. */
function closeDaily (): void {
  if (daily === undefined) return
  items.push(daily.columns)
  transfer.push(...daily.transfer())
  daily = undefined
}

function post (): void {
  closeDaily()
  const message: ScanMessage = { kind: 'batch', items, read }
  items = []
  size = 0
  inFlight += 1
  port?.postMessage(message, transfer)
  transfer = []
}

/** An item other than a daily record, after the daily records before it (the order read is the order written). */
function push (item: ScanItem): void {
  closeDaily()
  items.push(item)
}

const sink: ScanSink = {
  record: (record) => {
    if (record.kind === 'daily') {
      daily ??= new DailyColumnsBuilder(BATCH, spare.pop())
      daily.add(record)
    } else {
      push({ kind: 'record', record })
    }
    size += 1
    if (size >= BATCH) post()
    return room()
  },
  error: (place, message) => {
    push({ kind: 'error', place, message })
    // Errors do not wait: after the first one no record is written, so the writer only lists them.
    size += 1
    if (size >= BATCH) post()
  },
  read: (count) => { read = count },
}

const sources = data.sources.map((source) => ({ ...fileSource(source.path), name: source.name }))
const result = await scanSources(sources, new References(data.brands, data.accounts), sink)
if (items.length > 0 || daily !== undefined) post()
const done: ScanMessage = { kind: 'done', result }
port.postMessage(done)
