import { useEffect, useRef, useState } from 'preact/hooks'
import { describeProblem, type Problem } from '../api/problems.js'
import { signIn, type RateLimitWait, type Session } from '../api/session.js'
import type { Signal } from '../api/signal.js'
import { ProblemNotice } from './notices.js'
import { RateLimitBanner } from './rate-limit-banner.js'

export type SignInNotice = { kind: 'signed-out' } | { kind: 'ended', problem: Problem }

/**
 * The key pair form. The pair is handed to the client and kept in this tab's memory only; the
 * fields are cleared once signed in. After a sign-out or an ended session it says which.
 */
export function SignIn ({ notice, waits, onSignedIn }: { notice: SignInNotice | null, waits: Signal<RateLimitWait | null>, onSignedIn: (session: Session) => void }) {
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<Problem | null>(null)
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = 'Sign in · Partner Analytics'
    // After a sign-out or an ended session, say so first.
    if (notice !== null) heading.current?.focus()
  }, [notice])

  const submit = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const data = new FormData(form)
    setBusy(true)
    setProblem(null)
    try {
      const session = await signIn(String(data.get('client_key') ?? '').trim(), String(data.get('secret_key') ?? '').trim(), waits)
      form.reset()
      onSignedIn(session)
    } catch (error) {
      setProblem(describeProblem(error))
      setBusy(false)
    }
  }

  return (
    <main id='main' class='signin' tabIndex={-1}>
      <h1 ref={heading} tabIndex={-1}>Partner Analytics</h1>
      {notice?.kind === 'signed-out' && <p class='state state-signed-out' role='status' data-state='signed-out'>You are signed out. The key pair and token were forgotten.</p>}
      {notice?.kind === 'ended' && <ProblemNotice problem={notice.problem} level={2} />}
      <RateLimitBanner waits={waits} />
      <p>
        Sign in with the API key pair your partner representative gave you to see your brands' figures.
        The pair stays in this tab's memory only: reloading or closing the page signs you out.
      </p>
      <form class='signin-form' onSubmit={submit} aria-describedby='signin-help'>
        <label for='client_key'>API client key</label>
        <input id='client_key' name='client_key' required autocomplete='off' spellcheck={false} placeholder='pak_…' />
        <label for='secret_key'>API secret key</label>
        <input id='secret_key' name='secret_key' type='password' required autocomplete='off' placeholder='pas_…' />
        <p id='signin-help' class='hint'>The dashboard uses the public API with your own token and limits, like any client.</p>
        <button type='submit' disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
      {problem !== null && <ProblemNotice problem={problem.kind === 'session' ? { ...problem, title: 'Sign-in refused' } : problem} level={2} />}
    </main>
  )
}
