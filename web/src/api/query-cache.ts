import type { WalkProgress } from './loaders.js'

/**
 * One load per query for the whole session, shared by every component that shows it: a second
 * view of the same query reuses the answer (and the progress of a walk under way). A walk that
 * nobody watches any more stops at its next page (so changing filters mid-walk does not spend
 * the partner's rate limit on a chart nobody will see), and failures are not kept.
 */

export class CancelledError extends Error {
  constructor () {
    super('Nobody is waiting for this load any more')
    this.name = 'CancelledError'
  }
}

export type Load<T> = (report: (progress: WalkProgress) => void, isAbandoned: () => boolean) => Promise<T>

interface Entry {
  promise: Promise<unknown>
  watchers: number
  progress: WalkProgress | undefined
  listeners: Set<(progress: WalkProgress) => void>
}

export interface Watch<T> {
  promise: Promise<T>
  /** Progress reports of a walk, the latest one first if there was one. */
  onProgress: (listener: (progress: WalkProgress) => void) => void
  /** Stop watching; the last watcher to leave abandons the load. */
  release: () => void
}

export class QueryCache {
  private readonly entries = new Map<string, Entry>()

  watch<T> (key: string, load: Load<T>): Watch<T> {
    let entry = this.entries.get(key)
    if (entry === undefined) {
      const created: Entry = { promise: Promise.resolve(), watchers: 0, progress: undefined, listeners: new Set() }
      created.promise = load(
        (progress) => {
          created.progress = progress
          for (const listener of created.listeners) listener(progress)
        },
        () => created.watchers === 0,
      )
      created.promise.catch(() => { if (this.entries.get(key) === created) this.entries.delete(key) })
      this.entries.set(key, created)
      entry = created
    }
    const watched = entry
    watched.watchers += 1
    let released = false
    let own: ((progress: WalkProgress) => void) | undefined
    return {
      promise: watched.promise as Promise<T>,
      onProgress: (listener) => {
        own = listener
        watched.listeners.add(listener)
        if (watched.progress !== undefined) listener(watched.progress)
      },
      release: () => {
        if (released) return
        released = true
        watched.watchers -= 1
        if (own !== undefined) watched.listeners.delete(own)
      },
    }
  }

  clear (): void {
    this.entries.clear()
  }
}
