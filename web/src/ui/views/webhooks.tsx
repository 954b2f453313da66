import { useEffect, useState } from 'preact/hooks'
import type { Webhook, WebhookList } from '../../../../packages/client/src/types.js'
import { describeProblem, type Problem } from '../../api/problems.js'
import { Loading, ProblemNotice } from '../notices.js'
import { useSession } from '../session-context.js'
import { WebhookForm } from './webhook-form.js'
import { WebhookLog } from './webhook-log.js'

/**
 * The partner's webhooks (docs/webhooks.md): the list with each one's state and backlog and its
 * actions (send a test event, show its deliveries, edit, disable or enable, rotate the secret,
 * delete after a confirmation), the delivery log of the one chosen right under the list, and a
 * form to add one. A signing secret (a new webhook's, or a rotated one) is shown once, until
 * dismissed. Everything goes through the typed client.
 */

type ListState = { status: 'loading' } | { status: 'done', value: WebhookList } | { status: 'error', problem: Problem }

/** What the page says about a webhook: its description, else its URL. */
const nameOf = (hook: Webhook): string => hook.description ?? hook.url

export function WebhooksView () {
  const { session, endSession } = useSession()
  const [list, setList] = useState<ListState>({ status: 'loading' })
  const [revision, setRevision] = useState(0)
  const [selected, setSelected] = useState<string | null>(null)
  const [editing, setEditing] = useState<string | null>(null)
  const [deleting, setDeleting] = useState<string | null>(null)
  const [secret, setSecret] = useState<{ url: string, secret: string, rotated: boolean } | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [problem, setProblem] = useState<Problem | null>(null)

  /** A problem of an action: the session's end for the whole page, else shown above the list. */
  const report = (error: unknown): void => {
    const found = describeProblem(error)
    if (found.kind === 'session') endSession(found)
    else setProblem(found)
  }
  const reload = () => setRevision((value) => value + 1)

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

  /** Runs one action on a webhook: its problem shown, or its notice, and the list read again. */
  const act = (run: () => Promise<string | null>): void => {
    setProblem(null)
    run().then((said) => {
      setNotice(said)
      reload()
    }, report)
  }
  const actions: RowActions = {
    test: (hook) => act(async () => {
      const delivery = await session.client.testWebhook(hook.id)
      setSelected(hook.id)
      return `Test event ${delivery.event_id} queued for ${hook.url}; follow it in the delivery log.`
    }),
    select: (hook) => setSelected(hook.id),
    edit: (hook) => { setDeleting(null); setEditing(hook.id) },
    toggle: (hook) => act(async () => {
      const status = hook.status === 'enabled' ? 'disabled' : 'enabled'
      await session.client.updateWebhook(hook.id, { status })
      return status === 'disabled'
        ? `${hook.url} is disabled: nothing is sent to it, its deliveries wait until it is enabled.`
        : `${hook.url} is enabled: its waiting deliveries are sent.`
    }),
    rotate: (hook) => act(async () => {
      const rotated = await session.client.rotateWebhookSecret(hook.id)
      setSecret({ url: rotated.url, secret: rotated.secret, rotated: true })
      return null
    }),
    remove: (hook) => { setEditing(null); setDeleting(hook.id) },
  }
  const confirmDelete = (hook: Webhook): void => act(async () => {
    await session.client.deleteWebhook(hook.id)
    setDeleting(null)
    if (selected === hook.id) setSelected(null)
    return `${hook.url} is deleted, with its deliveries and their log; nothing more is sent to it.`
  })

  const hooks = list.status === 'done' ? list.value.data : []
  const chosen = hooks.find((hook) => hook.id === selected)
  const edited = hooks.find((hook) => hook.id === editing)
  const doomed = hooks.find((hook) => hook.id === deleting)
  return (
    <section class='panel' aria-labelledby='webhooks-title' data-webhooks>
      <div class='panel-head'>
        <h2 id='webhooks-title'>Webhooks</h2>
        <button type='button' onClick={reload}>Reload</button>
      </div>
      <p class='hint'>
        Your endpoints receive the change feed's events as they are recorded, signed with their secret
        (Standard Webhooks headers), retried for more than a day. Verify every delivery and dedupe by its
        webhook-id.
      </p>
      {secret !== null && (
        <div class='note secret-once' role='alert' data-webhook-secret>
          <p>
            <strong>{secret.rotated ? 'New signing secret' : 'Signing secret'} of {secret.url}</strong>: shown only now. Store it where your receiver reads it.
            {secret.rotated && ' The previous secret keeps signing beside it for 24 hours, so you can deploy this one at your pace.'}
          </p>
          <p><code data-secret>{secret.secret}</code></p>
          <button type='button' onClick={() => setSecret(null)}>I have stored it</button>
        </div>
      )}
      {notice !== null && <p class='note' role='status' data-webhook-notice>{notice}</p>}
      {problem !== null && <ProblemNotice problem={problem} />}
      {list.status === 'loading' && <Loading label='Loading webhooks' />}
      {list.status === 'error' && <ProblemNotice problem={list.problem} />}
      {list.status === 'done' && <WebhookTable hooks={hooks} selected={selected} actions={actions} />}
      {doomed !== undefined && (
        <div class='note confirm-delete' role='alertdialog' aria-labelledby='confirm-delete-title' data-confirm-delete={doomed.id}>
          <h3 id='confirm-delete-title'>Delete the webhook <code>{doomed.url}</code>?</h3>
          <p>Its pending deliveries and the delivery log go with it, and nothing more is sent to it. This cannot be undone.</p>
          <div class='buttons'>
            <button type='button' class='danger' onClick={() => confirmDelete(doomed)}>Delete it</button>
            <button type='button' onClick={() => setDeleting(null)}>Keep it</button>
          </div>
        </div>
      )}
      {chosen !== undefined && (
        <WebhookLog key={`${chosen.id}:${revision}`} webhookId={chosen.id} title={nameOf(chosen)} url={chosen.url} onProblem={report} />
      )}
      {edited !== undefined && (
        <WebhookForm
          key={edited.id}
          editing={edited}
          onSaved={(saved) => { setEditing(null); setProblem(null); setNotice(`${saved.url} is saved.`); reload() }}
          onCancel={() => setEditing(null)}
          onProblem={report}
        />
      )}
      {list.status === 'done' && edited === undefined && hooks.length < 10 && (
        <WebhookForm
          onCreated={(created) => {
            setProblem(null)
            setSecret({ url: created.url, secret: created.secret, rotated: false })
            setNotice(null)
            reload()
          }}
          onProblem={report}
        />
      )}
      {list.status === 'done' && hooks.length >= 10 && <p class='hint'>You have 10 webhooks, the most allowed: delete one to add another.</p>}
    </section>
  )
}

interface RowActions {
  test: (hook: Webhook) => void
  select: (hook: Webhook) => void
  edit: (hook: Webhook) => void
  toggle: (hook: Webhook) => void
  rotate: (hook: Webhook) => void
  remove: (hook: Webhook) => void
}

/**
 * One row per webhook. On a narrow screen each row is a card (styles.css), every cell under the
 * one before with its column's name, so the status and the buttons need no sideways scrolling.
 */
function WebhookTable ({ hooks, selected, actions }: { hooks: Webhook[], selected: string | null, actions: RowActions }) {
  if (hooks.length === 0) return <p class='state state-empty' role='status' data-state='no-webhooks'>No webhooks yet: add one below.</p>
  return (
    <div class='table-scroll' tabIndex={0} role='region' aria-label='Webhooks table'>
      <table class='data stacking' data-webhooks-table>
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
              <td class='text wrap' data-label='Events'>{hook.events.join(', ')}</td>
              <td class='text wrap' data-label='Status' data-webhook-status>
                {hook.status}
                {hook.disabled_reason !== null && <><br /><span class='hint'>{hook.disabled_reason}</span></>}
              </td>
              <td data-label='Pending' data-webhook-pending>{hook.pending_deliveries}</td>
              <td class='text actions' data-label='Actions'>
                <div class='buttons'>
                  <button type='button' disabled={hook.status !== 'enabled'} onClick={() => actions.test(hook)}>
                    Send test<span class='visually-hidden'> to {hook.url}</span>
                  </button>
                  <button type='button' aria-pressed={selected === hook.id} onClick={() => actions.select(hook)}>
                    Deliveries<span class='visually-hidden'> of {hook.url}</span>
                  </button>
                  <button type='button' onClick={() => actions.edit(hook)}>
                    Edit<span class='visually-hidden'> {hook.url}</span>
                  </button>
                  <button type='button' onClick={() => actions.toggle(hook)}>
                    {hook.status === 'enabled' ? 'Disable' : 'Enable'}<span class='visually-hidden'> {hook.url}</span>
                  </button>
                  <button type='button' onClick={() => actions.rotate(hook)}>
                    Rotate secret<span class='visually-hidden'> of {hook.url}</span>
                  </button>
                  <button type='button' class='danger' onClick={() => actions.remove(hook)}>
                    Delete<span class='visually-hidden'> {hook.url}</span>
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
