import { useEffect, useState } from 'preact/hooks'
import type { Webhook, WebhookList } from '../../../../packages/client/src/types.js'
import { describeProblem, type Problem } from '../../api/problems.js'
import { Loading, ProblemNotice } from '../notices.js'
import { useSession } from '../session-context.js'
import { WebhookForm } from './webhook-form.js'
import { WebhookLog } from './webhook-log.js'

/**
 * The partner's webhooks (docs/webhooks.md): the list with each one's state and backlog, a form to
 * add one (its signing secret shown once, until dismissed), a test event on request, and the
 * delivery log of the one selected, with redelivery. Everything goes through the typed client.
 */

type ListState = { status: 'loading' } | { status: 'done', value: WebhookList } | { status: 'error', problem: Problem }

export function WebhooksView () {
  const { session, endSession } = useSession()
  const [list, setList] = useState<ListState>({ status: 'loading' })
  const [revision, setRevision] = useState(0)
  const [selected, setSelected] = useState<string | null>(null)
  const [secret, setSecret] = useState<{ url: string, secret: string } | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [problem, setProblem] = useState<Problem | null>(null)

  /** A problem of an action: the session's end for the whole page, else shown above the list. */
  const report = (error: unknown): void => {
    const found = describeProblem(error)
    if (found.kind === 'session') endSession(found)
    else setProblem(found)
  }

  useEffect(() => {
    let cancelled = false
    setList({ status: 'loading' })
    session.client.listWebhooks().then(
      (value) => { if (!cancelled) setList({ status: 'done', value }) },
      (error: unknown) => {
        if (cancelled) return
        const found = describeProblem(error)
        if (found.kind === 'session') endSession(found)
        else setList({ status: 'error', problem: found })
      },
    )
    return () => { cancelled = true }
  }, [session, revision])

  const sendTest = async (hook: Webhook): Promise<void> => {
    setProblem(null)
    try {
      const delivery = await session.client.testWebhook(hook.id)
      setNotice(`Test event ${delivery.event_id} queued for ${hook.url}; follow it in the delivery log.`)
      setSelected(hook.id)
      setRevision((value) => value + 1)
    } catch (error) {
      report(error)
    }
  }

  return (
    <section class='panel' aria-labelledby='webhooks-title' data-webhooks>
      <div class='panel-head'>
        <h2 id='webhooks-title'>Webhooks</h2>
        <button type='button' onClick={() => setRevision((value) => value + 1)}>Reload</button>
      </div>
      <p class='hint'>
        Your endpoints receive the change feed's events as they are recorded, signed with their secret
        (Standard Webhooks headers), retried for more than a day. Verify every delivery and dedupe by its
        webhook-id.
      </p>
      {secret !== null && (
        <div class='note secret-once' role='alert' data-webhook-secret>
          <p><strong>Signing secret of {secret.url}</strong>: shown only now. Store it where your receiver reads it.</p>
          <p><code data-secret>{secret.secret}</code></p>
          <button type='button' onClick={() => setSecret(null)}>I have stored it</button>
        </div>
      )}
      {notice !== null && <p class='note' role='status' data-webhook-notice>{notice}</p>}
      {problem !== null && <ProblemNotice problem={problem} />}
      {list.status === 'loading' && <Loading label='Loading webhooks' />}
      {list.status === 'error' && <ProblemNotice problem={list.problem} />}
      {list.status === 'done' && (
        <WebhookTable hooks={list.value.data} selected={selected} onSelect={setSelected} onTest={(hook) => { sendTest(hook).catch(report) }} />
      )}
      {list.status === 'done' && list.value.data.length < 10 && (
        <WebhookForm
          onCreated={(created) => {
            setProblem(null)
            setSecret({ url: created.url, secret: created.secret })
            setNotice(null)
            setRevision((value) => value + 1)
          }}
          onProblem={report}
        />
      )}
      {list.status === 'done' && list.value.data.length >= 10 && <p class='hint'>You have 10 webhooks, the most allowed: delete one to add another.</p>}
      {selected !== null && list.status === 'done' && list.value.data.some((hook) => hook.id === selected) && (
        <WebhookLog key={`${selected}:${revision}`} webhookId={selected} onProblem={report} />
      )}
    </section>
  )
}

function WebhookTable ({ hooks, selected, onSelect, onTest }: { hooks: Webhook[], selected: string | null, onSelect: (id: string) => void, onTest: (hook: Webhook) => void }) {
  if (hooks.length === 0) return <p class='state state-empty' role='status' data-state='no-webhooks'>No webhooks yet: add one below.</p>
  return (
    <div class='table-scroll' tabIndex={0} role='region' aria-label='Webhooks table'>
      <table class='data' data-webhooks-table>
        <caption>Your webhooks, oldest first</caption>
        <thead>
          <tr>
            <th scope='col'>URL</th><th scope='col' class='text'>Events</th><th scope='col' class='text'>Status</th>
            <th scope='col'>Pending</th><th scope='col' class='text'>Actions</th>
          </tr>
        </thead>
        <tbody>
          {hooks.map((hook) => (
            <tr key={hook.id} data-webhook={hook.id}>
              <th scope='row' class='text'>
                <code>{hook.url}</code>
                {hook.description !== null && <><br /><span class='hint'>{hook.description}</span></>}
              </th>
              <td class='text wrap'>{hook.events.join(', ')}</td>
              <td class='text wrap' data-webhook-status>
                {hook.status}
                {hook.disabled_reason !== null && <><br /><span class='hint'>{hook.disabled_reason}</span></>}
              </td>
              <td data-webhook-pending>{hook.pending_deliveries}</td>
              <td class='text actions'>
                <div class='buttons'>
                  <button type='button' disabled={hook.status !== 'enabled'} onClick={() => onTest(hook)}>
                    Send test<span class='visually-hidden'> to {hook.url}</span>
                  </button>
                  <button type='button' aria-pressed={selected === hook.id} onClick={() => onSelect(hook.id)}>
                    Deliveries<span class='visually-hidden'> of {hook.url}</span>
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
