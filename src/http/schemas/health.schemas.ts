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
  replicas: Type.Optional(Type.Array(component('ReplicaHealth', Type.Object({
    id: Type.Integer({ description: 'Position of the replica in the service\'s list of read replicas, from 1' }),
    state: Type.Union([Type.Literal('ok'), Type.Literal('behind'), Type.Literal('lagging'), Type.Literal('down'), Type.Literal('unchecked')], {
      description: 'ok: holds every committed import, reads go to it; behind: misses a committed import; lagging: further behind than the allowed lag; down: does not answer; unchecked: not checked yet',
    }),
    lag_ms: Type.Union([Type.Integer(), Type.Null()], { description: 'How long the replica has been missing data the primary had, in ms; null when unknown' }),
    skipped: Type.Boolean({ description: 'True while reads do not go to this replica' }),
  })), { description: 'The read replicas and their state; present only when the service is configured with some. They never make the status an error: the primary serves what they cannot' })),
}))
export type Health = Static<typeof Health>

/** GET /health/live (docs/api-reference.md "GET /health/live"): the process answers. */
export const Liveness = component('Liveness', Type.Object({
  status: Type.Literal('ok'),
}, { description: 'The process answers requests; nothing else is checked' }))
export type Liveness = Static<typeof Liveness>

/** GET /health/ready (docs/api-reference.md "GET /health/ready"): the instance can serve partners. */
export const Readiness = component('Readiness', Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')], {
    description: 'Whether the database answered within 1 second; Redis is not checked (without it the service serves with in-process limits)',
  }),
}))
export type Readiness = Static<typeof Readiness>
