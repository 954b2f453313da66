import { useEffect, useState } from 'preact/hooks'
import type { RateLimitWait } from '../api/session.js'
import type { Signal } from '../api/signal.js'

/**
 * Shown while the client waits out a 429 (or a login lockout): what the API said, the
 * Retry-After it sent, and a countdown to the automatic retry. The sentence is announced once;
 * the ticking countdown is hidden from screen readers so it is not read every second.
 */
export function RateLimitBanner ({ waits }: { waits: Signal<RateLimitWait | null> }) {
  const [wait, setWait] = useState(waits.value)
  const [now, setNow] = useState(Date.now())
  useEffect(() => waits.subscribe(setWait), [waits])
  useEffect(() => {
    if (wait === null) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [wait])
  if (wait === null) return <div class='rate-limit-slot' role='status' />
  const seconds = Math.max(0, Math.ceil((wait.retryAt - now) / 1000))
  const what = wait.errorCode === 'TOO_MANY_ATTEMPTS' ? 'Too many sign-in attempts' : 'Rate limited'
  return (
    <div class='rate-limit-slot' role='status'>
      <div class='banner banner-rate-limit' data-state='rate-limited'>
        <p>
          <strong>{what}</strong> ({wait.errorCode}): the API asked to wait{' '}
          <span data-retry-after>{wait.retryAfterSeconds ?? '?'}</span> s (Retry-After).
          The dashboard waits and retries by itself.
          {wait.requestId !== undefined && <> Request id: <code>{wait.requestId}</code>.</>}
        </p>
        <p aria-hidden='true' class='countdown'>{seconds > 0 ? `Retrying in ${seconds} s…` : 'Retrying now…'}</p>
      </div>
    </div>
  )
}
