import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { Problem } from '../api/problems.js'
import type { Session } from '../api/session.js'

/** The signed-in session, and the way out when the API says the session is over. */
export interface SessionContextValue {
  session: Session
  /** Called with a `session` problem (expired, invalid, disabled): back to the sign-in form. */
  endSession: (problem: Problem) => void
}

export const SessionContext = createContext<SessionContextValue | null>(null)

export function useSession (): SessionContextValue {
  const value = useContext(SessionContext)
  if (value === null) throw new Error('useSession outside a signed-in dashboard')
  return value
}
