import type { Command } from 'commander'
import type { OperatorEndpoint } from '../../services/webhooks/endpoints.service.js'
import { withServices } from '../context.js'
import { printJson, say, type CliIo } from '../io.js'

/**
 * `webhooks list|disable|enable` (docs/webhooks.md "For operators"): every partner's endpoints
 * with their backlog, and the operator's switch. An endpoint the operator disabled stays
 * disabled until the operator enables it (the partner's PATCH is refused). Secrets are never shown.
 */
export function registerWebhookCommands (program: Command, io: CliIo): void {
  const webhooks = program.command('webhooks').description('See every partner\'s webhook endpoints and their backlog; disable or enable one')

  webhooks.command('list')
    .description('List webhook endpoints (all, or one user\'s) with status, pending deliveries and the oldest pending')
    .option('--user <user_id>', 'only this user\'s endpoints')
    .option('--json', 'print one JSON object on stdout')
    .action(async (options: { user?: string, json?: boolean }) => {
      const list = await withServices(io, ({ services }) => services.webhooks.endpoints.listAll({ userId: options.user }))
      if (options.json === true) return printJson(io, { webhooks: list.map(operatorJson) })
      if (list.length === 0) return say(io, 'No webhooks.')
      for (const endpoint of list) {
        say(io, [endpoint.id, endpoint.userId, endpoint.status + (endpoint.disabledBy === null ? '' : `(${endpoint.disabledBy})`),
          `pending=${endpoint.pendingDeliveries}`, `oldest_pending=${endpoint.oldestPendingAt ?? '-'}`, endpoint.url].join('  '))
      }
    })

  webhooks.command('disable <webhook_id>')
    .description('Disable an endpoint: nothing is sent to it (pending deliveries wait) and only an operator can enable it again')
    .option('--reason <text>', 'why, shown to the partner in disabled_reason')
    .option('--json', 'print one JSON object on stdout')
    .action(async (webhookId: string, options: { reason?: string, json?: boolean }) => {
      const endpoint = await withServices(io, ({ services }) => services.webhooks.endpoints.setDisabledByOperator(webhookId, true, options.reason))
      if (options.json === true) return printJson(io, operatorJson(endpoint))
      say(io, `Webhook ${webhookId} disabled: ${endpoint.disabledReason ?? ''}`)
    })

  webhooks.command('enable <webhook_id>')
    .description('Enable a disabled endpoint (whoever disabled it); pending deliveries are then sent')
    .option('--json', 'print one JSON object on stdout')
    .action(async (webhookId: string, options: { json?: boolean }) => {
      const endpoint = await withServices(io, ({ services }) => services.webhooks.endpoints.setDisabledByOperator(webhookId, false))
      if (options.json === true) return printJson(io, operatorJson(endpoint))
      say(io, `Webhook ${webhookId} enabled.`)
    })
}

function operatorJson (endpoint: OperatorEndpoint): Record<string, unknown> {
  return {
    webhook_id: endpoint.id,
    user_id: endpoint.userId,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    status: endpoint.status,
    disabled_by: endpoint.disabledBy,
    disabled_reason: endpoint.disabledReason,
    created_at: endpoint.createdAt,
    pending_deliveries: endpoint.pendingDeliveries,
    oldest_pending_at: endpoint.oldestPendingAt,
  }
}
