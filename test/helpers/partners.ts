import type { FastifyInstance } from 'fastify'
import type { Store } from '../../src/storage/db.js'
import { createUser } from '../../src/services/users/users.service.js'

/** A partner as tests use it: ids and the key pair that was shown once at creation. */
export interface TestPartner {
  userId: string
  clientKey: string
  secretKey: string
}

let created = 0

/**
 * Creates a user with a fresh key pair through the same service the CLI uses. The brands must
 * exist already (see insertBrandsWithAccounts in fixtures.ts).
 */
export async function createPartner (store: Store, options: { brandIds: number[], name?: string }): Promise<TestPartner> {
  created += 1
  const issued = await createUser(store.db, { name: options.name ?? `Partner ${created}`, brandIds: options.brandIds })
  return { userId: issued.user_id, clientKey: issued.api_client_key, secretKey: issued.api_secret_key }
}

/** Logs the partner in through POST /auth/login and returns the access token; throws when refused. */
export async function loginToken (app: FastifyInstance, partner: Pick<TestPartner, 'clientKey' | 'secretKey'>): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/auth/login',
    payload: { api_client_key: partner.clientKey, api_secret_key: partner.secretKey },
  })
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`)
  return (response.json() as { access_token: string }).access_token
}

/** `{ authorization: 'Bearer …' }` for app.inject. */
export function bearer (token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` }
}
