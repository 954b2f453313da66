import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildOnce } from './build-once.js'

/**
 * The compiled service (dist/, `tsc -p tsconfig.build.json`, what `npm run build` runs before the
 * dashboard), for tests that run it as it is deployed: compiled when missing or older than any
 * source, once however many test files ask at the same time (test/helpers/build-once.ts).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const COMPILED_MAIN = join(ROOT, 'dist/cli/main.js')
const COMPILE_TIMEOUT_MS = 300_000

export async function ensureCompiled (): Promise<void> {
  await buildOnce({
    name: 'compile',
    output: COMPILED_MAIN,
    sources: [join(ROOT, 'src')],
    lock: join(ROOT, 'dist/.compile.lock'),
    staleMs: COMPILE_TIMEOUT_MS,
    build: () => {
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
      const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, encoding: 'utf8', timeout: COMPILE_TIMEOUT_MS })
      if (result.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (${result.status ?? result.signal}): ${result.stdout}${result.stderr}`)
    },
  })
}
