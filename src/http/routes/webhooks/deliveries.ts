import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AppError, validationError } from '../../../domain/errors.js'
import { CursorCodec } from '../../cursors/codec.js'
import { decodeDeliveriesCursor, encodeDeliveriesCursor } from '../../cursors/deliveries-cursor.js'
import { cursorIssue } from '../../query/period-rule.js'
import { PARTNER_ROUTE } from '../../route-access.js'
import { ErrorBody, protectedErrorResponses } from '../../schemas/errors.schemas.js'
import { DeliveriesQuery, Delivery, DeliveryPage, DeliveryParams, WebhookParams } from '../../schemas/webhooks.schemas.js'
import { deliveryJson, eventNumberOfDelivery } from './wire.js'

/**
 * A webhook's deliveries (docs/webhooks.md "The delivery log"): the log, newest first, paged with
 * a signed cursor; redelivery; and a webhook.test event on request.
 */
export const webhookDeliveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deliveries = app.services.webhooks.deliveries
  const cursors = new CursorCodec(app.config.jwtSecret, 'webhook-deliveries')

  app.post('/webhooks/:id/test', {
    schema: {
      operationId: 'testWebhook',
      tags: ['webhooks'],
      summary: 'Send a webhook.test event to the endpoint now; follow it in the delivery log',
      params: WebhookParams,
      response: { 202: Delivery, ...protectedErrorResponses, 404: ErrorBody, 409: ErrorBody },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request, reply): Promise<Delivery> => {
    reply.code(202)
    return deliveryJson(await deliveries.sendTest(request.principal.userId, request.params.id))
  })

  app.get('/webhooks/:id/deliveries', {
    schema: {
      operationId: 'listWebhookDeliveries',
      tags: ['webhooks'],
      summary: 'The delivery log: each delivery with its attempts, newest first',
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: DeliveryPage, ...protectedErrorResponses, 404: ErrorBody },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request): Promise<DeliveryPage> => {
    const { id } = request.params
    const { status, limit, cursor } = request.query
    let before: number | undefined
    if (cursor !== undefined) {
      before = decodeDeliveriesCursor(cursors, id, status, cursor)
      if (before === undefined) throw validationError([cursorIssue('cursor_invalid')])
    }
    const page = await deliveries.page(request.principal.userId, id, { status, beforeEventNumber: before, limit })
    return {
      data: page.deliveries.map(deliveryJson),
      has_more: page.nextBeforeEventNumber !== undefined,
      next_cursor: page.nextBeforeEventNumber === undefined ? null : encodeDeliveriesCursor(cursors, id, status, page.nextBeforeEventNumber),
    }
  })

  app.post('/webhooks/:id/deliveries/:delivery_id/redeliver', {
    schema: {
      operationId: 'redeliverWebhookDelivery',
      tags: ['webhooks'],
      summary: 'Queue a delivery again, due now, with a fresh retry schedule',
      params: DeliveryParams,
      response: { 202: Delivery, ...protectedErrorResponses, 404: ErrorBody, 409: ErrorBody },
    },
    config: { access: PARTNER_ROUTE },
  }, async (request, reply): Promise<Delivery> => {
    const { id, delivery_id: deliveryId } = request.params
    const eventNumber = eventNumberOfDelivery(deliveryId)
    if (eventNumber === undefined) throw new AppError('NOT_FOUND', `No delivery ${deliveryId} of webhook ${id}`)
    reply.code(202)
    return deliveryJson(await deliveries.redeliver(request.principal.userId, id, eventNumber))
  })
}
