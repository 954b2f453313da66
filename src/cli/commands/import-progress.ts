import cliProgress from 'cli-progress'
import type { CliIo } from '../io.js'

/**
 * The import's progress bar on a terminal: a record counter while validating (the total is not
 * known yet), then a bar over the records counted by validation while writing. Nothing at all
 * when stderr is not a terminal (pipes, logs, tests).
 */
export interface ImportProgress {
  update: (recordsDone: number, pass: 'validate' | 'write') => void
  /** Clears the bar for good; error lines and the summary are printed after this. */
  stop: () => void
}

const WIDTH = 30

function render (pass: string, value: number, total: number): string {
  if (pass === 'validate') return `validating  ${value.toLocaleString('en-US')} records`
  const filled = total > 0 ? Math.min(WIDTH, Math.round((value / total) * WIDTH)) : WIDTH
  const percent = total > 0 ? Math.floor((value / total) * 100) : 100
  return `writing     [${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}] ${percent}% ${value.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`
}

export function createImportProgress (io: CliIo): ImportProgress {
  if (io.stderr.isTTY !== true) return { update: () => {}, stop: () => {} }
  const bar = new cliProgress.SingleBar({
    stream: io.stderr as NodeJS.WriteStream,
    format: (_options, params, payload: { pass?: string }) => render(payload.pass ?? 'validate', params.value, params.total),
    hideCursor: true,
    clearOnComplete: true,
    fps: 10,
  })
  let state: 'idle' | 'running' | 'stopped' = 'idle'
  let validated = 0
  return {
    update: (done, pass) => {
      if (state === 'stopped') return
      if (state === 'idle') {
        bar.start(0, 0, { pass })
        state = 'running'
      }
      if (pass === 'validate') validated = done
      bar.setTotal(pass === 'validate' ? done : validated)
      bar.update(done, { pass })
    },
    stop: () => {
      if (state === 'running') bar.stop()
      state = 'stopped'
    },
  }
}
