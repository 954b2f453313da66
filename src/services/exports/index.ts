import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ResolvedConfig } from '../../config/schema.js'
import type { Store } from '../../storage/db.js'
import { createLocalFileStore, createS3FileStore, type ExportFileStore } from '../../storage/exports/file-store.js'
import { createExportsService, type ExportsService } from './exports.service.js'
import { exportCompletedNotifier, type ChangesCursorWriter } from './completed-event.js'
import { createExportWorker, type ExportWorker } from './export-worker.js'
import type { ForegroundLoad } from '../foreground-load.js'

/** Export jobs wired together: the partner's jobs, the file store and the worker that runs them (started by `serve` only). */

export interface ExportOptions {
  /** How long a claim holds a job without renewal (30 s; tests shorten it). */
  leaseMs?: number
  /** How often the worker looks for queued jobs (1 s). */
  pollMs?: number
  /** The API's load the export processes give way to (the services' own; tests set their own). */
  foreground?: Pick<ForegroundLoad, 'busy'>
}

export interface ExportsServices {
  jobs: ExportsService
  worker: ExportWorker
  files: ExportFileStore
}

/** EXPORT_S3_URL (`s3://bucket/prefix`) with the other EXPORT_S3_* settings, else the local folder. */
export function exportFileStoreOf (config: ResolvedConfig): ExportFileStore {
  const settings = config.exports
  const dir = settings.dir ?? join(config.dataDir, 'exports')
  if (settings.s3Url === undefined) return createLocalFileStore(dir)
  const url = new URL(settings.s3Url)
  return createS3FileStore({
    endpoint: settings.s3Endpoint,
    region: settings.s3Region,
    bucket: url.hostname,
    prefix: decodeURIComponent(url.pathname),
    accessKeyId: settings.s3AccessKeyId,
    secretAccessKey: settings.s3SecretAccessKey,
    forcePathStyle: settings.s3Endpoint !== undefined,
  }, join(tmpdir(), 'partner-analytics-exports'))
}

export function createExportsServices (deps: { config: ResolvedConfig, store: Store, now: () => number, foreground?: ForegroundLoad, changesCursor?: ChangesCursorWriter, options?: ExportOptions }): ExportsServices {
  const { config, store, now, options = {} } = deps
  const files = exportFileStoreOf(config)
  const settings = config.exports
  const worker = createExportWorker({
    store,
    files,
    parquet: { memoryLimit: `${settings.parquetMemoryMb}MB`, tempDirectory: join(files.stagingDir, 'duckdb'), threads: 1 },
    nice: settings.nice,
    foreground: options.foreground ?? deps.foreground,
    concurrency: settings.concurrency,
    concurrencyPerPartner: settings.concurrencyPerPartner,
    maxRowsPerFile: settings.maxRowsPerFile,
    maxRows: settings.maxRows,
    timeLimitMs: settings.timeLimitSeconds * 1000,
    retentionHours: settings.retentionHours,
    now,
    leaseMs: options.leaseMs,
    pollMs: options.pollMs,
    // A succeeded job tells its owner's webhooks (export.completed), in the transaction that ends it.
    onSucceeded: deps.changesCursor === undefined ? undefined : exportCompletedNotifier({ changesCursor: deps.changesCursor, now }),
  })
  const jobs = createExportsService({ store, files, now, wake: () => worker.wake() })
  return { jobs, worker, files }
}
