import { PROGRESS_EVERY, type ScanResult, type ScanSink } from './scan.js'
import { buffersOf, dailyRecordOf, type ScanAck, type ScanMessage } from './scan-batches.js'
import type { RecordSource } from './source.js'
import { startImportThread } from './threads.js'

/**
 * The import's reading in a thread of its own (scan-worker.ts) when every source is a file:
 * reading, JSON parsing, validation and the reference checks (scan.ts) run there, beside the
 * writing (the store's statements, the read model) here, on the second core. What the sink
 * receives is what scanSources in this thread would give it, in the same order.
 */

export interface ScanWorkerData {
  sources: Array<{ name: string, path: string }>
  brands: number[]
  accounts: string[]
}

/** The file each source reads, when every one is a file; undefined otherwise (read here). */
export function filesOf (sources: readonly RecordSource[]): ScanWorkerData['sources'] | undefined {
  const files: ScanWorkerData['sources'] = []
  for (const source of sources) {
    if (source.path === undefined) return undefined
    files.push({ name: source.name, path: source.path })
  }
  return files
}

export async function scanInWorker (data: ScanWorkerData, sink: ScanSink): Promise<ScanResult> {
  const worker = startImportThread('./scan-worker', data)
  const queue: ScanMessage[] = []
  let wake: (() => void) | undefined
  let failure: { error: unknown } | undefined
  const rouse = (): void => {
    const waiting = wake
    wake = undefined
    waiting?.()
  }
  worker.on('message', (message: ScanMessage) => {
    queue.push(message)
    rouse()
  })
  worker.on('error', (error) => {
    failure ??= { error }
    rouse()
  })
  worker.on('exit', (code) => {
    failure ??= { error: new Error(`the import's reading thread stopped (exit code ${code})`) }
    rouse()
  })
  let reported = 0
  try {
    for (;;) {
      const message = queue.shift()
      if (message === undefined) {
        if (failure !== undefined) throw failure.error
        await new Promise<void>((resolve) => { wake = resolve })
        continue
      }
      if (message.kind === 'done') return message.result
      for (const item of message.items) {
        if (item.kind === 'daily-columns' && sink.dailyColumns !== undefined) {
          const pending = sink.dailyColumns(item)
          if (pending !== undefined) await pending
        } else if (item.kind === 'daily-columns') {
          for (let row = 0; row < item.length; row += 1) {
            const pending = sink.record(dailyRecordOf(item, row))
            if (pending !== undefined) await pending
          }
        } else if (item.kind === 'record') {
          const pending = sink.record(item.record)
          if (pending !== undefined) await pending
        } else {
          sink.error(item.place, item.message)
        }
      }
      for (; reported + PROGRESS_EVERY <= message.read; reported += PROGRESS_EVERY) sink.read(reported + PROGRESS_EVERY)
      const spare = message.items.filter((item) => item.kind === 'daily-columns')
      worker.postMessage({ spare } satisfies ScanAck, spare.flatMap(buffersOf))
    }
  } finally {
    await worker.terminate()
  }
}
