import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { LOGIN_ROUTE } from '../../route-access.js'
import { LoginBody, TokenResponse } from '../../schemas/auth.schemas.js'
import { ErrorBody, ValidationErrorBody } from '../../schemas/errors.schemas.js'

/** POST /auth/login (docs/api-reference.md "Authentication"): a key pair for a bearer token; limited per IP. */
export const loginRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/auth/login', {
    schema: {
      operationId: 'login',
      tags: ['auth'],
      summary: 'Trade an API client key and secret for a bearer token',
      body: LoginBody,
      response: { 200: TokenResponse, 401: ErrorBody, 403: ErrorBody, 422: ValidationErrorBody, 429: ErrorBody, 500: ErrorBody },
    },
    // A key holding a NUL is a malformed key: the contract's 401, judged by the login before any store.
    config: { access: LOGIN_ROUTE, formatCheckedMembers: ['api_client_key', 'api_secret_key'] },
  }, async (request): Promise<TokenResponse> => {
    const token = await app.services.auth.login({ clientKey: request.body.api_client_key, secretKey: request.body.api_secret_key }, request.ip)
    return { access_token: token.accessToken, token_type: 'bearer', expires_in: token.expiresIn, user_id: token.userId }
  })
}
