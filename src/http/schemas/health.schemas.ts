import { Type, type Static } from '@sinclair/typebox'
import { component } from './components.js'

/** GET /health (docs/api-reference.md "GET /health"). */
export const Health = component('Health', Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  version: Type.String({ description: 'Service version' }),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
  redis: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('unreachable')], {
    description: 'Whether the shared rate-limit and lockout store answers; present only when the service is configured with one',
  })),
  uptime_s: Type.Integer({ description: 'Seconds since the process started' }),
}))
export type Health = Static<typeof Health>
