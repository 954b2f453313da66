import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

/**
 * How a read worker loads: the way the main thread does, wherever the process was started.
 * - Compiled (dist/, production): the worker's JavaScript module, nothing more.
 * - From the TypeScript sources (a checkout: the `partner-analytics` bin, `npm run cli`, tests):
 *   the worker's TypeScript module with tsx's loader, named by its absolute URL as resolved from
 *   this package. A worker does not inherit a loader the main thread registered in code
 *   (bin/partner-analytics.js does), and a bare `--import tsx` is resolved from the working
 *   directory: started outside the checkout (npm link, a service manager, a container's WORKDIR)
 *   there is no node_modules/tsx, and every worker failed to load.
 */

const LOADER_FLAGS = new Set(['--import', '--loader', '--experimental-loader', '--require', '-r'])
const NAMES_TSX = /(^|[\\/])tsx($|[\\/])/

export interface WorkerLoading {
  /** The worker module, as a file URL. */
  filename: string
  execArgv: string[]
}

/** `preload`: tests only, a module each worker imports before its own (sqlite-read-pool.ts). */
export function workerLoading (preload?: URL): WorkerLoading {
  return workerModuleLoading(import.meta.url, './sqlite-read-worker', preload)
}

/**
 * How any worker module loads: `path` relative to `from` (the caller's import.meta.url), without
 * its extension, which is the caller's own (.ts from the sources, .js compiled).
 */
export function workerModuleLoading (from: string, path: string, preload?: URL): WorkerLoading {
  const fromSources = from.endsWith('.ts')
  const filename = new URL(`${path}.${fromSources ? 'ts' : 'js'}`, from).href
  const preloads = preload === undefined ? [] : ['--import', preload.href]
  if (!fromSources) return { filename, execArgv: [...process.execArgv, ...preloads] }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  return { filename, execArgv: [...withoutTsxLoaders(process.execArgv), '--import', tsx, ...preloads] }
}

/** The main thread's flags without those loading tsx by a name that the working directory resolves. */
export function withoutTsxLoaders (execArgv: readonly string[]): string[] {
  const kept: string[] = []
  for (let index = 0; index < execArgv.length; index++) {
    const arg = execArgv[index] ?? ''
    const [flag = '', inline] = arg.split(/=(.*)/s)
    if (!LOADER_FLAGS.has(flag)) {
      kept.push(arg)
      continue
    }
    // `--import=x` is one argument, `--import x` two.
    const value = inline ?? execArgv[index + 1]
    const taken = inline === undefined && value !== undefined ? [arg, value] : [arg]
    index += taken.length - 1
    if (value === undefined || !NAMES_TSX.test(value)) kept.push(...taken)
  }
  return kept
}
