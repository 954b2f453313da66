import type { RecordSource, RawRecord } from '../import/source.js'
import { generateDemoRecords, resolveDemoOptions, type DemoOptions } from './generator.js'

/**
 * The generator as an import source. Every `read()` runs the generator again from the start;
 * it is deterministic, so the validation pass and the write pass see the same records, and
 * nothing is held in memory between them. Line numbers are the lines of the equivalent
 * `demo --out` file, so an error message points at the same record in both.
 */
export function demoSource (options: DemoOptions): RecordSource {
  // Resolve once: `until` defaults to today, and both passes must agree on it even across midnight.
  const resolved = resolveDemoOptions(options)
  return {
    name: `demo(seed=${resolved.seed})`,
    read: async function * (): AsyncGenerator<RawRecord> {
      let line = 0
      for (const value of generateDemoRecords(resolved)) yield { line: ++line, value }
    },
  }
}
