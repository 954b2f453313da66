import { useEffect, useState } from 'preact/hooks'
import type { WalkProgress } from '../api/loaders.js'
import { describeProblem, type Problem } from '../api/problems.js'
import { CancelledError, type Load, type Watch } from '../api/query-cache.js'
import { useSession } from './session-context.js'

export type LoadState<T> =
  | { status: 'loading', progress?: WalkProgress }
  | { status: 'done', value: T }
  | { status: 'error', problem: Problem }

/**
 * The state of the load named `key` (shared through the session's cache). A result that arrives
 * after the key changed is dropped; a session problem (expired, invalid) ends the session for the
 * whole page instead of showing here.
 */
export function useLoad<T> (key: string, load: Load<T>): LoadState<T> {
  const { session, endSession } = useSession()
  // The state remembers its key: the first render after the key changes (before the effect runs)
  // shows "loading", never the previous query's figures under the new filters.
  const [keyed, setKeyed] = useState<{ key: string, state: LoadState<T> }>({ key, state: { status: 'loading' } })
  useEffect(() => {
    const setState = (next: LoadState<T>) => setKeyed({ key, state: next })
    let cancelled = false
    let watch: Watch<T> | undefined
    const start = () => {
      const current = session.cache.watch(key, load)
      watch = current
      current.onProgress((progress) => { if (!cancelled) setState({ status: 'loading', progress }) })
      current.promise.then(
        (value) => { if (!cancelled) setState({ status: 'done', value }) },
        (error: unknown) => {
          if (cancelled) return
          // Abandoned by its previous watchers just before this one joined: start it again.
          if (error instanceof CancelledError) { current.release(); start(); return }
          const problem = describeProblem(error)
          if (problem.kind === 'session') endSession(problem)
          else setState({ status: 'error', problem })
        },
      )
    }
    setState({ status: 'loading' })
    start()
    return () => {
      cancelled = true
      watch?.release()
    }
    // `load` is a new closure on every render; `key` names everything it depends on.
  }, [key, session])
  return keyed.key === key ? keyed.state : { status: 'loading' }
}
