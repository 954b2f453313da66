import { useState } from 'preact/hooks'
import type { Webhook, WebhookWithSecret } from '../../../../packages/client/src/types.js'
import { useSession } from '../session-context.js'

/**
 * Adding a webhook (its URL, the event types, all by default, and a description), or editing one
 * (the same fields, filled with its own: PATCH sends them all; a blank description removes it).
 */

const EVENT_TYPES = ['analytics.updated', 'posts.updated', 'brand.updated', 'account.updated', 'access.granted', 'access.revoked'] as const
type EventType = (typeof EVENT_TYPES)[number]

type Props = { onProblem: (error: unknown) => void } & (
  | { editing?: undefined, onCreated: (created: WebhookWithSecret) => void }
  | { editing: Webhook, onSaved: (saved: Webhook) => void, onCancel: () => void }
)

export function WebhookForm (props: Props) {
  const { session } = useSession()
  const { editing, onProblem } = props
  const [url, setUrl] = useState(editing?.url ?? '')
  const [description, setDescription] = useState(editing?.description ?? '')
  const [events, setEvents] = useState<Set<EventType>>(new Set(editing === undefined ? EVENT_TYPES : editing.events as EventType[]))
  const [busy, setBusy] = useState(false)
  // Ids of the fields: the add form and an edit form can be on the page at once.
  const prefix = editing === undefined ? 'webhook' : 'edit-webhook'

  const toggle = (type: EventType, on: boolean): void => {
    const next = new Set(events)
    if (on) next.add(type)
    else next.delete(type)
    setEvents(next)
  }

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault()
    setBusy(true)
    try {
      const chosen = EVENT_TYPES.filter((type) => events.has(type))
      if (props.editing !== undefined) {
        const saved = await session.client.updateWebhook(props.editing.id, { url: url.trim(), events: chosen, description: description.trim() === '' ? null : description.trim() })
        props.onSaved(saved)
        return
      }
      const created = await session.client.createWebhook({ url: url.trim(), events: chosen, ...(description.trim() === '' ? {} : { description: description.trim() }) })
      setUrl('')
      setDescription('')
      setEvents(new Set(EVENT_TYPES))
      props.onCreated(created)
    } catch (error) {
      onProblem(error)
    } finally {
      setBusy(false)
    }
  }

  const title = editing === undefined ? 'Add a webhook' : 'Edit the webhook'
  return (
    <form class='webhook-form' aria-labelledby={`${prefix}-title`} data-webhook-form={editing === undefined ? 'add' : 'edit'} onSubmit={(event) => { submit(event).catch(onProblem) }}>
      <h3 id={`${prefix}-title`}>{title}{editing !== undefined && <> <code>{editing.url}</code></>}</h3>
      <label for={`${prefix}-url`}>URL (https://)</label>
      <input id={`${prefix}-url`} type='url' required value={url} placeholder='https://etl.example.com/hooks' onInput={(event) => setUrl(event.currentTarget.value)} />
      <label for={`${prefix}-description`}>Description (optional)</label>
      <input id={`${prefix}-description`} type='text' maxLength={500} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
      <fieldset>
        <legend>Events</legend>
        <div class='checklist checklist-columns'>
          {EVENT_TYPES.map((type) => (
            <label key={type} class='check'>
              <input type='checkbox' checked={events.has(type)} onChange={(event) => toggle(type, event.currentTarget.checked)} />
              {type}
            </label>
          ))}
        </div>
      </fieldset>
      <div class='buttons'>
        <button type='submit' class='primary' disabled={busy || events.size === 0}>{editing === undefined ? 'Add webhook' : 'Save changes'}</button>
        {props.editing !== undefined && <button type='button' onClick={props.onCancel}>Cancel</button>}
      </div>
    </form>
  )
}
