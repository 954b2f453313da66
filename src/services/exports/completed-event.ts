import type { Transaction } from 'kysely'
import { EXPORT_COMPLETED_EVENT_TYPE } from '../../domain/webhooks/webhooks.js'
import type { Database } from '../../storage/database.js'
import type { ExportJobRow } from '../../storage/exports/export-jobs.repository.js'
import { queueWebhookOnlyEvent } from '../webhooks/webhook-only-events.js'
import { jobOf } from './exports.service.js'

/**
 * The export.completed webhook event (docs/exports.md "Keeping the warehouse current"): when a
 * job succeeds, its owner's webhooks subscribed to the type — only the owner's, whatever brands
 * others share — receive what a pipeline needs to start loading: the job, its size, where the
 * manifest is and the change-feed cursor the manifest gives. Written in the transaction that marks
 * the job succeeded (src/services/exports/export-worker.ts): a failed or cancelled job, or one that
 * lost its lease, announces nothing.
 */

/** The `data` of an export.completed event. */
export interface ExportCompletedData {
  export_id: string
  dataset: string
  format: string
  compression: string
  rows: number
  file_count: number
  manifest_url: string
  changes_cursor: string
}

/** Writes a user's unfiltered GET /changes cursor after an event number (ServiceDeps.changesCursor). */
export type ChangesCursorWriter = (userId: string, eventNumber: number, issuedAt: number) => string

/**
 * `changesCursor` writes the public GET /changes cursor of a user positioned after an event
 * number (the HTTP layer's encoding, the one the manifest's `changes_cursor` is written with).
 */
export function exportCompletedNotifier (deps: { changesCursor: ChangesCursorWriter, now: () => number }) {
  return async (trx: Transaction<Database>, row: ExportJobRow): Promise<void> => {
    const job = jobOf(row)
    const files = job.files ?? []
    const data: ExportCompletedData = {
      export_id: job.id,
      dataset: job.request.dataset,
      format: job.request.format,
      compression: job.request.compression,
      rows: files.reduce((sum, file) => sum + file.rows, 0),
      file_count: files.length,
      manifest_url: `/exports/${job.id}/manifest`,
      changes_cursor: deps.changesCursor(row.user_id, job.eventId ?? 0, deps.now()),
    }
    await queueWebhookOnlyEvent(trx, { userId: row.user_id, type: EXPORT_COMPLETED_EVENT_TYPE, nowMs: deps.now(), data })
  }
}
