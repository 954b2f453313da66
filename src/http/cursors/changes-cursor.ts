import type { ChangeEventType } from '../../domain/changes.js'
import { CursorCodec } from './codec.js'

/**
 * The /changes cursor (docs/api-reference.md "Change feed"): the event number the next page
 * starts after, and when the page that issued it was served (so a cursor older than the retention
 * is recognised). Signed with the service's JWT secret, so it is valid on every instance; bound to
 * the user and to the normalised filters (brand_id ascending, types in the documented order), not
 * to `limit`.
 */

export interface ChangesCursorBinding {
  userId: string
  brandIds: readonly number[] | undefined
  types: readonly ChangeEventType[] | undefined
}

export interface ChangesPosition {
  eventNumber: number
  /** ms since the epoch, to the second. */
  issuedAt: number
}

function binding ({ userId, brandIds, types }: ChangesCursorBinding): unknown {
  return { user_id: userId, brand_id: brandIds ?? null, type: types ?? null }
}

export function encodeChangesCursor (codec: CursorCodec, bound: ChangesCursorBinding, position: ChangesPosition): string {
  return codec.encode([position.eventNumber, Math.floor(position.issuedAt / 1000)], binding(bound))
}

/** The position a cursor carries, or undefined when it is garbage, edited, or from another user or filter. */
export function decodeChangesCursor (codec: CursorCodec, bound: ChangesCursorBinding, cursor: string): ChangesPosition | undefined {
  const payload = codec.decode(cursor, binding(bound))
  if (!Array.isArray(payload) || payload.length !== 2) return undefined
  const [eventNumber, issuedAtSeconds] = payload as unknown[]
  if (!Number.isSafeInteger(eventNumber) || (eventNumber as number) < 0) return undefined
  if (!Number.isSafeInteger(issuedAtSeconds) || (issuedAtSeconds as number) < 0) return undefined
  return { eventNumber: eventNumber as number, issuedAt: (issuedAtSeconds as number) * 1000 }
}

/** Writes a user's unfiltered cursor positioned after an event number (`issuedAt` ms since the epoch). */
export type UnfilteredChangesCursor = (userId: string, eventNumber: number, issuedAt: number) => string

/**
 * The cursor an export's manifest gives (`changes_cursor`) and its export.completed event
 * carries: bound to the user and to no filter, so GET /changes?cursor=… continues right after
 * the event number. The services are handed this writer (ServiceDeps.changesCursor).
 */
export function unfilteredChangesCursor (jwtSecret: string): UnfilteredChangesCursor {
  const codec = new CursorCodec(jwtSecret, 'changes')
  return (userId, eventNumber, issuedAt) => encodeChangesCursor(codec, { userId, brandIds: undefined, types: undefined }, { eventNumber, issuedAt })
}
