import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { PARTNER_ROUTE } from '../../route-access.js'
import { ErrorBody, inputlessProtectedErrorResponses, protectedErrorResponses } from '../../schemas/errors.schemas.js'
import { CreateWebhookBody, NoContent, UpdateWebhookBody, Webhook, WebhookList, WebhookParams, WebhookWithSecret } from '../../schemas/webhooks.schemas.js'
import { webhookJson } from './wire.js'

/**
 * A partner's webhook endpoints (docs/api-reference.md "Webhooks"; docs/webhooks.md): create,
 * list, read, change, delete, rotate the secret. Bearer routes counted in the partner's own rate
 * limit; a partner reaches only its own webhooks (any other id is 404).
 */
export const webhookEndpointRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const endpoints = app.services.webhooks.endpoints
  const withNotFound = { ...protectedErrorResponses, 404: ErrorBody }

  app.post('/webhooks', {
    schema: {
      operationId: 'createWebhook',
      tags: ['webhooks'],
      summary: 'Register a webhook endpoint; the answer holds its signing secret, shown only here',
      body: CreateWebhookBody,
      response: { 201: WebhookWithSecret, ...protectedErrorResponses, 409: ErrorBody },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request, reply): Promise<WebhookWithSecret> => {
    const created = await endpoints.create(request.principal.userId, request.body)
    reply.code(201).header('location', `/webhooks/${created.endpoint.id}`)
    return { ...webhookJson(created.endpoint), secret: created.secret }
  })

  app.get('/webhooks', {
    schema: {
      operationId: 'listWebhooks',
      tags: ['webhooks'],
      summary: 'Your webhook endpoints, oldest first',
      // No query, path or body: nothing to refuse with 422.
      response: { 200: WebhookList, ...inputlessProtectedErrorResponses },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request): Promise<WebhookList> => {
    return { data: (await endpoints.list(request.principal.userId)).map(webhookJson) }
  })

  app.get('/webhooks/:id', {
    schema: {
      operationId: 'getWebhook',
      tags: ['webhooks'],
      summary: 'One of your webhook endpoints',
      params: WebhookParams,
      response: { 200: Webhook, ...withNotFound },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request): Promise<Webhook> => webhookJson(await endpoints.get(request.principal.userId, request.params.id)))

  app.patch('/webhooks/:id', {
    schema: {
      operationId: 'updateWebhook',
      tags: ['webhooks'],
      summary: 'Change a webhook\'s URL, events or description, or disable and enable it',
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: { 200: Webhook, ...withNotFound, 409: ErrorBody },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request): Promise<Webhook> => webhookJson(await endpoints.update(request.principal.userId, request.params.id, request.body)))

  app.delete('/webhooks/:id', {
    schema: {
      operationId: 'deleteWebhook',
      tags: ['webhooks'],
      summary: 'Delete a webhook endpoint with its delivery log; nothing more is sent to it',
      params: WebhookParams,
      response: { 204: NoContent, ...withNotFound },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request, reply) => {
    await endpoints.remove(request.principal.userId, request.params.id)
    return await reply.code(204).send(null)
  })

  app.post('/webhooks/:id/rotate-secret', {
    schema: {
      operationId: 'rotateWebhookSecret',
      tags: ['webhooks'],
      summary: 'Issue a new signing secret; the previous one keeps signing beside it for 24 hours',
      params: WebhookParams,
      response: { 200: WebhookWithSecret, ...withNotFound },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request): Promise<WebhookWithSecret> => {
    const rotated = await endpoints.rotateSecret(request.principal.userId, request.params.id)
    return { ...webhookJson(rotated.endpoint), secret: rotated.secret }
  })
}
