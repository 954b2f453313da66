import { useState } from 'preact/hooks'
import type { WebhookWithSecret } from '../../../../packages/client/src/types.js'
import { useSession } from '../session-context.js'

/** Adding a webhook: its URL, the event types (all by default) and a description. */

const EVENT_TYPES = ['analytics.updated', 'posts.updated', 'brand.updated', 'account.updated', 'access.granted', 'access.revoked'] as const
type EventType = (typeof EVENT_TYPES)[number]

export function WebhookForm ({ onCreated, onProblem }: { onCreated: (created: WebhookWithSecret) => void, onProblem: (error: unknown) => void }) {
  const { session } = useSession()
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [events, setEvents] = useState<Set<EventType>>(new Set(EVENT_TYPES))
  const [busy, setBusy] = useState(false)

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
      const created = await session.client.createWebhook({
        url: url.trim(),
        events: EVENT_TYPES.filter((type) => events.has(type)),
        ...(description.trim() === '' ? {} : { description: description.trim() }),
      })
      setUrl('')
      setDescription('')
      setEvents(new Set(EVENT_TYPES))
      onCreated(created)
    } catch (error) {
      onProblem(error)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form class='webhook-form' aria-labelledby='add-webhook-title' onSubmit={(event) => { submit(event).catch(onProblem) }}>
      <h3 id='add-webhook-title'>Add a webhook</h3>
      <label for='webhook-url'>URL (https://)</label>
      <input id='webhook-url' type='url' required value={url} placeholder='https://etl.example.com/hooks' onInput={(event) => setUrl(event.currentTarget.value)} />
      <label for='webhook-description'>Description (optional)</label>
      <input id='webhook-description' type='text' maxLength={500} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
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
      <button type='submit' class='primary' disabled={busy || events.size === 0}>Add webhook</button>
    </form>
  )
}
