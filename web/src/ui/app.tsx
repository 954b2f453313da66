import { useCallback, useMemo, useState } from 'preact/hooks'
import type { Problem } from '../api/problems.js'
import type { RateLimitWait, Session } from '../api/session.js'
import { Signal } from '../api/signal.js'
import { Dashboard } from './dashboard.js'
import { SessionContext } from './session-context.js'
import { SignIn, type SignInNotice } from './sign-in.js'

/** Signed out (the sign-in form, maybe saying why) or signed in (the dashboard). */
export function App () {
  const waits = useMemo(() => new Signal<RateLimitWait | null>(null), [])
  const [session, setSession] = useState<Session | null>(null)
  const [notice, setNotice] = useState<SignInNotice | null>(null)

  const leave = useCallback((next: SignInNotice) => {
    session?.end()
    waits.set(null)
    setSession(null)
    setNotice(next)
  }, [session, waits])
  const endSession = useCallback((problem: Problem) => leave({ kind: 'ended', problem }), [leave])
  const signOut = useCallback(() => leave({ kind: 'signed-out' }), [leave])
  const signedIn = useCallback((next: Session) => {
    setNotice(null)
    setSession(next)
  }, [])
  const context = useMemo(() => session === null ? null : { session, endSession }, [session, endSession])

  return (
    <>
      <a class='skip-link' href='#main'>Skip to main content</a>
      {context === null
        ? <SignIn notice={notice} waits={waits} onSignedIn={signedIn} />
        : (
          <SessionContext.Provider value={context}>
            <Dashboard waits={waits} onSignOut={signOut} />
          </SessionContext.Provider>
          )}
    </>
  )
}
