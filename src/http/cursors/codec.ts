import { createHmac, timingSafeEqual } from 'node:crypto'

/** Whether `text` is exactly what Buffer#toString('base64url') writes for some bytes (no padding, no other characters, unused bits 0). */
function isCanonicalBase64url (text: string): boolean {
  return /^[A-Za-z0-9_-]*$/.test(text) && Buffer.from(text, 'base64url').toString('base64url') === text
}

/**
 * Opaque, tamper-evident paging cursors bound to the query that produced them (docs/api-reference.md "GET /me",
 * §6, §7). A cursor is `base64url(payload JSON) + "." + base64url(HMAC-SHA256)`, where the MAC
 * covers the purpose (me, analytics, posts), the normalised query and the payload. Any edit, a
 * cursor from another endpoint, or one replayed with other parameters fails to decode, and so does
 * any other spelling of a cursor it issued (padding or a stray character added, a last character's
 * unused bits set): one cursor, one text.
 */
export class CursorCodec {
  private readonly key: Buffer

  /** @param secret the service's JWT secret; a separate key is derived from it for cursors. */
  constructor (secret: string, private readonly purpose: string) {
    this.key = createHmac('sha256', secret).update('partner-analytics cursor key v1').digest()
  }

  /** @param binding the normalised query (any JSON value); the cursor is only valid with it. */
  encode (payload: unknown, binding: unknown): string {
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')
    return `${body}.${this.mac(body, binding).toString('base64url')}`
  }

  /** The payload, or undefined when the cursor is garbage, edited, or bound to another query. */
  decode (cursor: string, binding: unknown): unknown {
    const dot = cursor.indexOf('.')
    if (dot <= 0 || cursor.length > 2048) return undefined
    const body = cursor.slice(0, dot)
    const mac = cursor.slice(dot + 1)
    // Only the one spelling encode() writes: Node's decoder skips characters outside the alphabet
    // (`=`, `!`) and ignores a last character's unused bits, so other spellings would decode too.
    if (!isCanonicalBase64url(body) || !isCanonicalBase64url(mac)) return undefined
    const presented = Buffer.from(mac, 'base64url')
    const expected = this.mac(body, binding)
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown
    } catch {
      return undefined
    }
  }

  private mac (body: string, binding: unknown): Buffer {
    return createHmac('sha256', this.key)
      .update(this.purpose).update('\n')
      .update(JSON.stringify(binding)).update('\n')
      .update(body)
      .digest()
  }
}
