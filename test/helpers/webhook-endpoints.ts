import type { Kysely } from 'kysely'
import { formatUtcSeconds } from '../../src/domain/dates.js'
import { generateWebhookId, generateWebhookSecret } from '../../src/services/webhooks/identifiers.js'
import type { Database } from '../../src/storage/database.js'
import { insertEndpoint } from '../../src/storage/webhooks/endpoints.repository.js'

/**
 * An enabled webhook endpoint written straight into the store, without the API's URL checks (a
 * target no partner could register, or a hundred endpoints for a benchmark); returns its id.
 */
export async function insertEnabledEndpoint (db: Kysely<Database>, endpoint: { userId: string, url: string, events: string[] }): Promise<string> {
  const endpointId = generateWebhookId()
  const at = formatUtcSeconds()
  await insertEndpoint(db, {
    endpoint_id: endpointId,
    user_id: endpoint.userId,
    url: endpoint.url,
    description: null,
    status: 'enabled',
    disabled_by: null,
    disabled_reason: null,
    secret: generateWebhookSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    failing_since: null,
    created_at: at,
    updated_at: at,
  }, endpoint.events)
  return endpointId
}
