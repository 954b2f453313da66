import { Type, type Static } from '@sinclair/typebox'
import { component } from './components.js'

/** POST /auth/login: the body and the token (docs/api-reference.md "Authentication"). */

export const LoginBody = Type.Object({
  api_client_key: Type.String({ description: 'Issued client key: `pak_` + 24 base62 characters', examples: ['pak_3kTMd9Qx0bWf7LzR2vYp8HnA'] }),
  api_secret_key: Type.String({ description: 'Issued secret key: `pas_` + 43 base62 characters, shown once at issue', examples: ['pas_Zr8mW1qK4tYb7NcV0xLp3sHd6GfJ9aEu2RiOo5TnMlQ'] }),
})
export type LoginBody = Static<typeof LoginBody>

export const TokenResponse = component('Token', Type.Object({
  access_token: Type.String({ description: 'JWT bearer token' }),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Seconds of validity (3600 by default)' }),
  user_id: Type.String({ description: 'Opaque id of the authenticated user' }),
}))
export type TokenResponse = Static<typeof TokenResponse>
