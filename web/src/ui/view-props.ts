import type { Filters } from '../model/filters.js'
import type { Period } from '../model/period.js'
import type { Scope } from '../model/queries.js'

/** What every view gets from the dashboard. */
export interface ViewProps {
  filters: Filters
  period: Period
  /** The period of the same length just before `period`. */
  previous: Period
  scope: Scope
  brandNames: ReadonlyMap<number, string>
  navigate: (filters: Filters) => void
  /** Bumped by Refresh: part of every load key, so everything is asked again. */
  revision: number
}
