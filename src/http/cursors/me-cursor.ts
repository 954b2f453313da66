import type { CursorCodec } from './codec.js'

/** The /me cursor: the last brand_id of the previous page, bound to the user (docs/api-reference.md "GET /me"). */

export function encodeMeCursor (codec: CursorCodec, userId: string, afterBrandId: number): string {
  return codec.encode({ after: afterBrandId }, { user_id: userId })
}

export function decodeMeCursor (codec: CursorCodec, userId: string, cursor: string): number | undefined {
  const payload = codec.decode(cursor, { user_id: userId })
  if (payload === null || typeof payload !== 'object') return undefined
  const after = (payload as { after?: unknown }).after
  return typeof after === 'number' && Number.isSafeInteger(after) ? after : undefined
}
