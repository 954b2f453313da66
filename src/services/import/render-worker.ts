import { parentPort } from 'node:worker_threads'
import { groupRowOf } from '../../storage/read-model/group-rows.js'
import { renderBrandDayEntry } from '../analytics/entries.js'
import type { RenderReply, RenderRequest } from './render-thread.js'

/** The import's rendering thread (render-thread.ts): brand-day rows in, their entries' texts out. */
const port = parentPort
if (port === null) throw new Error('render-worker.ts runs as a worker thread')
port.on('message', (request: RenderRequest) => {
  const reply: RenderReply = { id: request.id, entries: request.rows.map((row) => renderBrandDayEntry(groupRowOf(row))) }
  port.postMessage(reply)
})
