import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * Runs a full garbage collection now, as `--expose-gc`'s `gc()` does, for tests of what must
 * survive one (a timer's weakly held signal). The flag is set at run time: a fresh context made
 * after it sees `gc`.
 */
export function collectGarbage (): void {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  gc()
}
