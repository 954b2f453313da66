import cliProgress from 'cli-progress'
import type { CliIo } from '../io.js'

/**
 * The import's progress on a terminal: a running count of the records read and written (one
 * pass; the total is not known until the end). Nothing at all when stderr is not a terminal
 * (pipes, logs, tests).
 */
export interface ImportProgress {
  update: (recordsDone: number) => void
  /** Clears the line for good; error lines and the summary are printed after this. */
  stop: () => void
}

export function createImportProgress (io: CliIo): ImportProgress {
  if (io.stderr.isTTY !== true) return { update: () => {}, stop: () => {} }
  const bar = new cliProgress.SingleBar({
    stream: io.stderr as NodeJS.WriteStream,
    format: (_options, params) => `importing  ${params.value.toLocaleString('en-US')} ${params.value === 1 ? 'record' : 'records'}`,
    hideCursor: true,
    clearOnComplete: true,
    fps: 10,
  })
  let state: 'idle' | 'running' | 'stopped' = 'idle'
  return {
    update: (done) => {
      if (state === 'stopped') return
      if (state === 'idle') {
        bar.start(0, 0)
        state = 'running'
      }
      bar.update(done)
    },
    stop: () => {
      if (state === 'running') bar.stop()
      state = 'stopped'
    },
  }
}
