import type { WalkProgress } from '../api/loaders.js'
import type { Problem } from '../api/problems.js'
import type { Period } from '../model/period.js'
import { useFirstOfProblem } from './problem-registry.js'

/** The page's honest states: loading (with progress), empty, and every kind of refusal. */

export function Loading ({ label, progress }: { label: string, progress?: WalkProgress | undefined }) {
  if (progress === undefined) {
    return <p class='state state-loading' role='status'>{label}…</p>
  }
  return (
    <div class='state state-loading' role='status'>
      <p>
        {label}: {progress.pages} {progress.pages === 1 ? 'page' : 'pages'}, {progress.entries} entries,
        {' '}{progress.daysCovered} of {progress.totalDays} days…
      </p>
      <progress max={progress.totalDays} value={progress.daysCovered} aria-label={`${label}: days loaded`} />
    </div>
  )
}

export function Empty ({ period, what }: { period: Period, what: string }) {
  return (
    <div class='state state-empty' role='status' data-state='empty'>
      <h3>No data for this period</h3>
      <p>The API has no {what} for {period.since} – {period.until} with these filters: nothing was reported.</p>
    </div>
  )
}

/**
 * `level`: the heading level that fits where the notice stands (2 on the sign-in page, 3 inside a
 * panel). A problem already shown on the page (the same refusal of another load) is not repeated
 * (problem-registry.ts): a line says the part is not loaded, and why in two words.
 */
export function ProblemNotice ({ problem, onRetry, level = 3 }: { problem: Problem, onRetry?: () => void, level?: 2 | 3 }) {
  const first = useFirstOfProblem(problem)
  if (!first) return <p class='hint' data-problem-repeat>Not loaded: {problem.title.toLowerCase()} (the same refusal, shown once on this page).</p>
  const Heading = level === 2 ? 'h2' : 'h3'
  return (
    <div class={`state state-problem problem-${problem.kind}`} role='alert' data-state={problem.kind}>
      <Heading>{problem.title}</Heading>
      <p class='problem-detail'>{problem.detail}</p>
      {(problem.status !== undefined || problem.requestId !== undefined) && (
        <p class='problem-meta'>
          {problem.status !== undefined && <>HTTP {problem.status}{problem.errorCode !== undefined && ` ${problem.errorCode}`}. </>}
          {problem.requestId !== undefined && <>Request id (quote it to support): <code data-request-id>{problem.requestId}</code></>}
        </p>
      )}
      {onRetry !== undefined && <button type='button' onClick={onRetry}>Try again</button>}
    </div>
  )
}
