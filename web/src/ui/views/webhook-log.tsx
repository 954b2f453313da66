import { useEffect, useState } from 'preact/hooks'
import type { WebhookDelivery } from '../../../../packages/client/src/types.js'
import { useSession } from '../session-context.js'
import { Loading } from '../notices.js'

/**
 * One webhook's delivery log, newest first, page by page, with a status filter and redelivery.
 * Its heading names the webhook it belongs to; each delivery lists every attempt the API keeps
 * (the newest 20, newest first), so two 500s before a success are seen, not only the success.
 */

const STATUSES = ['pending', 'succeeded', 'failed', 'skipped'] as const
type Status = (typeof STATUSES)[number]

export function WebhookLog ({ webhookId, title, url, onProblem }: { webhookId: string, title: string, url: string, onProblem: (error: unknown) => void }) {
  const { session } = useSession()
  const [status, setStatus] = useState<Status | ''>('')
  const [rows, setRows] = useState<WebhookDelivery[] | null>(null)
  const [cursor, setCursor] = useState<string | null>(null)
  const [revision, setRevision] = useState(0)

  useEffect(() => {
    let cancelled = false
    setRows(null)
    session.client.webhookDeliveries(webhookId, { limit: 20, ...(status === '' ? {} : { status }) }).then((page) => {
      if (cancelled) return
      setRows(page.data)
      setCursor(page.next_cursor)
    }, (error: unknown) => { if (!cancelled) onProblem(error) })
    return () => { cancelled = true }
  }, [webhookId, status, revision])

  const more = async (): Promise<void> => {
    if (cursor === null) return
    const page = await session.client.webhookDeliveries(webhookId, { limit: 20, cursor, ...(status === '' ? {} : { status }) })
    setRows([...(rows ?? []), ...page.data])
    setCursor(page.next_cursor)
  }

  const redeliver = async (delivery: WebhookDelivery): Promise<void> => {
    const queued = await session.client.redeliverWebhookDelivery(webhookId, delivery.id)
    setRows((rows ?? []).map((row) => row.id === queued.id ? queued : row))
  }

  return (
    <div class='webhook-log' data-webhook-log={webhookId} aria-labelledby='delivery-log-title'>
      <div class='panel-head'>
        <h3 id='delivery-log-title' data-log-of>Delivery log of {title === url ? <code>{url}</code> : <>{title} (<code>{url}</code>)</>}</h3>
        <div class='pickers'>
          <label for='delivery-status'>Status</label>
          <select id='delivery-status' value={status} onChange={(event) => setStatus(event.currentTarget.value as Status | '')}>
            <option value=''>All</option>
            {STATUSES.map((value) => <option key={value} value={value}>{value}</option>)}
          </select>
          <button type='button' onClick={() => setRevision((value) => value + 1)}>Refresh log</button>
        </div>
      </div>
      {rows === null && <Loading label='Loading deliveries' />}
      {rows !== null && rows.length === 0 && <p class='state state-empty' role='status' data-state='no-deliveries'>No deliveries{status === '' ? '' : ` ${status}`} yet.</p>}
      {rows !== null && rows.length > 0 && (
        <div class='table-scroll' tabIndex={0} role='region' aria-label='Delivery log table'>
          <table class='data stacking' data-deliveries-table>
            <caption>Deliveries to {url}, newest first; each attempt newest first; times UTC</caption>
            <thead>
              <tr>
                <th scope='col'>Event</th><th scope='col' class='text'>Type</th><th scope='col' class='text'>Status</th><th scope='col'>Attempts</th>
                <th scope='col' class='text'>Every attempt</th><th scope='col' class='text'>Next attempt</th><th scope='col' class='text'>Action</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((delivery) => (
                <tr key={delivery.id} data-delivery={delivery.id}>
                  <th scope='row'><code>{delivery.event_id}</code></th>
                  <td class='text' data-label='Type'>{delivery.event_type}</td>
                  <td class='text' data-label='Status' data-delivery-status>{delivery.status}{delivery.skip_reason !== null && ` (${delivery.skip_reason})`}</td>
                  <td data-label='Attempts' data-attempt-count>{delivery.attempt_count}</td>
                  <td class='text wrap' data-label='Every attempt'><Attempts delivery={delivery} /></td>
                  <td class='text' data-label='Next attempt'>{delivery.next_attempt_at?.replace('T', ' ').replace('Z', '') ?? '—'}</td>
                  <td class='text' data-label='Action'>
                    <button type='button' onClick={() => { redeliver(delivery).catch(onProblem) }}>
                      Redeliver<span class='visually-hidden'> {delivery.event_id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor !== null && <button type='button' onClick={() => { more().catch(onProblem) }}>Older deliveries</button>}
    </div>
  )
}

const when = (time: string): string => time.replace('T', ' ').replace('Z', '')

/** Every attempt the API keeps of a delivery, newest first, and how many older ones it no longer keeps. */
function Attempts ({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempts.length === 0) return <>—</>
  const older = delivery.attempt_count - delivery.attempts.length
  return (
    <>
      {/* Numbered as the API counts them: the newest is attempt number attempt_count. */}
      <ol class='attempts' reversed start={delivery.attempt_count}>
        {delivery.attempts.map((attempt, index) => (
          <li key={index} data-attempt>{when(attempt.attempted_at)}: {attempt.error ?? `HTTP ${attempt.http_status ?? '?'}`} in {attempt.duration_ms} ms</li>
        ))}
      </ol>
      {older > 0 && <p class='hint'>and {older} older {older === 1 ? 'attempt' : 'attempts'} (the API keeps the newest 20)</p>}
    </>
  )
}
