import { Worker } from 'node:worker_threads'
import { workerModuleLoading } from '../../storage/read-pool/worker-loading.js'

/**
 * Starts one of the import's worker modules (`path` beside this file, without extension), loaded
 * the way this module was: compiled, the module is the worker's entry; from the TypeScript sources
 * (tests, a checkout's bin), the worker first registers tsx's loader in code, as
 * bin/partner-analytics.js does, then imports the module (a worker's entry module is loaded
 * before --import hooks would let it be TypeScript).
 */
export function startImportThread (path: string, workerData: unknown): Worker {
  const { filename, execArgv } = workerModuleLoading(import.meta.url, path)
  // What a thread allocates (parsed lines, rendered texts) dies young: a young generation of a third
  // of V8's default keeps its share of the import's peak RSS down (docs/benchmarks.md).
  const options = { workerData, execArgv, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } }
  if (!filename.endsWith('.ts')) return new Worker(new URL(filename), options)
  const tsx = import.meta.resolve('tsx/esm/api')
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(filename)}) })`, { ...options, eval: true })
}

const YOUNG_GENERATION_MB = 16
