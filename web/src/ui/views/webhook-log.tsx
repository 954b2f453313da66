import { useEffect, useState } from 'preact/hooks'
import type { WebhookDelivery } from '../../../../packages/client/src/types.js'
import { useSession } from '../session-context.js'
import { Loading } from '../notices.js'

/** One webhook's delivery log, newest first, page by page, with a status filter and redelivery. */

const STATUSES = ['pending', 'succeeded', 'failed', 'skipped'] as const
type Status = (typeof STATUSES)[number]

export function WebhookLog ({ webhookId, onProblem }: { webhookId: string, onProblem: (error: unknown) => void }) {
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
    <div class='webhook-log' data-webhook-log={webhookId}>
      <div class='panel-head'>
        <h3>Delivery log</h3>
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
          <table class='data' data-deliveries-table>
            <caption>Deliveries, newest first; times UTC</caption>
            <thead>
              <tr>
                <th scope='col'>Event</th><th scope='col' class='text'>Type</th><th scope='col' class='text'>Status</th><th scope='col'>Attempts</th>
                <th scope='col' class='text'>Last attempt</th><th scope='col' class='text'>Next attempt</th><th scope='col' class='text'>Action</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((delivery) => (
                <tr key={delivery.id} data-delivery={delivery.id}>
                  <th scope='row'><code>{delivery.event_id}</code></th>
                  <td class='text'>{delivery.event_type}</td>
                  <td class='text' data-delivery-status>{delivery.status}{delivery.skip_reason !== null && ` (${delivery.skip_reason})`}</td>
                  <td>{delivery.attempt_count}</td>
                  <td class='text wrap' data-last-attempt>{lastAttempt(delivery)}</td>
                  <td class='text'>{delivery.next_attempt_at?.replace('T', ' ').replace('Z', '') ?? '—'}</td>
                  <td class='text'>
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

function lastAttempt (delivery: WebhookDelivery): string {
  const [attempt] = delivery.attempts
  if (attempt === undefined) return '—'
  const outcome = attempt.error ?? `HTTP ${attempt.http_status ?? '?'}`
  return `${attempt.attempted_at.replace('T', ' ').replace('Z', '')}: ${outcome} in ${attempt.duration_ms} ms`
}
