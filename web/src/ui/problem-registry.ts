import { createContext } from 'preact'
import { useContext, useEffect, useRef, useState } from 'preact/hooks'
import type { Problem } from '../api/problems.js'

/**
 * One notice per problem on the page. Several loads of one view often fail for the same reason
 * (a brand not granted refuses the totals, the previous period, the data status and the series
 * alike: four 403s), and two views may share one request (its request id shown twice). The
 * first notice of a problem on the page shows it; the others stay empty while it is on screen,
 * and one of them takes over when it goes.
 *
 * Same problem: the same kind, HTTP status, error code and detail (the request id aside: each
 * refused request has its own, and the first notice's is the one quoted); for a 422, the same
 * reasons wherever they point (a period refused by GET /analytics/ as `query.since` and by
 * POST /reports as `body.since` and `body.comparison` is one refusal).
 */
export class ProblemRegistry {
  /** Per problem key, its notices in the order they claimed it; the first one shows it. */
  private readonly holders = new Map<string, number[]>()
  private readonly listeners = new Set<() => void>()
  private next = 0

  newOwner (): number {
    this.next += 1
    return this.next
  }

  /** Claims `key` for `owner` (idempotent); true when `owner` is the notice that shows it. */
  claim (key: string, owner: number): boolean {
    const owners = this.holders.get(key) ?? []
    if (!owners.includes(owner)) {
      owners.push(owner)
      this.holders.set(key, owners)
    }
    return owners[0] === owner
  }

  release (key: string, owner: number): void {
    const owners = this.holders.get(key)
    if (owners === undefined) return
    const shown = owners[0] === owner
    const left = owners.filter((other) => other !== owner)
    if (left.length === 0) this.holders.delete(key)
    else this.holders.set(key, left)
    if (shown && left.length > 0) for (const listener of [...this.listeners]) listener()
  }

  subscribe (listener: () => void): () => void {
    this.listeners.add(listener)
    return () => { this.listeners.delete(listener) }
  }
}

export const ProblemRegistryContext = createContext<ProblemRegistry | null>(null)

export function problemKey (problem: Problem): string {
  return JSON.stringify([problem.kind, problem.status ?? null, problem.errorCode ?? null, problem.title, problem.reasons ?? problem.detail])
}

/**
 * Whether this notice shows its problem: always outside a registry (the sign-in page); inside
 * one, only the first notice of the same problem on the page. Claimed while rendering, so the
 * duplicates never appear, not even for one frame.
 */
export function useFirstOfProblem (problem: Problem): boolean {
  const registry = useContext(ProblemRegistryContext)
  const owner = useRef(0)
  const [, rerender] = useState(0)
  if (registry !== null && owner.current === 0) owner.current = registry.newOwner()
  const key = problemKey(problem)
  useEffect(() => {
    if (registry === null) return
    const unsubscribe = registry.subscribe(() => rerender((value) => value + 1))
    return () => {
      unsubscribe()
      registry.release(key, owner.current)
    }
  }, [registry, key])
  return registry === null ? true : registry.claim(key, owner.current)
}
