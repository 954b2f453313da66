import type { BrandDayBatchRenderer } from '../../storage/read-model/group-rows.js'
import { startImportThread } from './threads.js'

/**
 * The daily entries of the brand-days an import sums again (brand_daily.entry_json), rendered in a
 * thread beside the commit (render-worker.ts: renderBrandDayEntry, the same text): the store sums
 * the next page of brand-days while this thread renders the last one.
 */

export interface RenderRequest { id: number, rows: unknown[][] }
export interface RenderReply { id: number, entries: string[] }

export interface RenderThread {
  render: BrandDayBatchRenderer
  close: () => Promise<void>
}

export function startRenderThread (): RenderThread {
  const worker = startImportThread('./render-worker', undefined)
  const waiting = new Map<number, { resolve: (entries: string[]) => void, reject: (error: unknown) => void }>()
  let failure: unknown
  let next = 0
  const failAll = (error: unknown): void => {
    failure ??= error
    for (const pending of waiting.values()) pending.reject(failure)
    waiting.clear()
  }
  worker.on('message', (reply: RenderReply) => {
    const pending = waiting.get(reply.id)
    waiting.delete(reply.id)
    pending?.resolve(reply.entries)
  })
  worker.on('error', failAll)
  worker.on('exit', (code) => { failAll(new Error(`the import's rendering thread stopped (exit code ${code})`)) })
  return {
    render: async (rows) => {
      if (failure !== undefined) throw failure
      const id = next++
      const entries = new Promise<string[]>((resolve, reject) => waiting.set(id, { resolve, reject }))
      worker.postMessage({ id, rows } satisfies RenderRequest)
      return await entries
    },
    close: async () => {
      // Its own stop is no failure to report.
      failure ??= new Error('the import\'s rendering thread is closed')
      await worker.terminate()
    },
  }
}
