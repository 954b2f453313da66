import { Type, type TUnsafe } from '@sinclair/typebox'
import { MAX_DATE, MIN_DATE } from '../../domain/dates.js'
import { PLATFORM_ALIASES, PLATFORM_CODES } from '../../domain/platforms.js'
import { POST_TYPES, POST_TYPE_SPELLINGS } from '../../domain/post-types.js'

/**
 * Query parameters shared by the routes, as schemas: Ajv validates them (after the strict
 * coercion of src/http/query/coerce.ts), fast types come from them, and the OpenAPI document
 * shows them. Lists are arrays sent comma-separated (`style: form, explode: false`).
 */

/** At most this many distinct ids in one id list (bounded work per request). */
export const MAX_IDS = 100

/** A closed set of words, typed as their union (TypeBox's Union of literals would be anyOf). */
export function StringEnum<T extends string> (values: readonly T[], options: Record<string, unknown> = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options })
}

/** A calendar date YYYY-MM-DD from 0001-01-01 to 9999-12-31 (the `date` format is checked by src/domain/dates.ts). */
export function DateParam (description: string) {
  return Type.String({ format: 'date', description: `${description}. YYYY-MM-DD, ${MIN_DATE} to ${MAX_DATE}.`, examples: ['2026-11-01'] })
}

/** Comma-separated positive integer ids: leading zeros allowed, spaces around items allowed, duplicates collapsed. */
export function IdListParam (description: string) {
  return Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
    maxItems: MAX_IDS,
    description: `${description}. Comma-separated positive integers (at most ${MAX_IDS} distinct).`,
    examples: [[1, 2]],
  })
}

/** Comma-separated platform codes or names, case-insensitive. */
export const PlatformListParam = Type.Array(
  StringEnum(PLATFORM_ALIASES, { title: 'platform', description: 'use a code or name such as fb or facebook' }),
  { description: `Comma-separated platform codes or names, case-insensitive: ${PLATFORM_CODES.join(', ')} (or facebook, instagram, …)`, examples: [['fb', 'ig']] },
)

/** Comma-separated post categories, case-insensitive; `reels` = `reel`. */
export const PostTypeListParam = Type.Array(
  StringEnum(POST_TYPE_SPELLINGS, { title: 'post type', description: `use ${POST_TYPES.join(', ')}` }),
  { description: `Comma-separated post categories, case-insensitive: ${POST_TYPES.join(', ')} (reels = reel)`, examples: [['video', 'reel']] },
)

/** true/false/1/0/yes/no/on/off, case-insensitive; absent = false. */
export function FlagParam (description: string) {
  return Type.Boolean({ default: false, description: `${description}. true/false/1/0/yes/no/on/off, case-insensitive.` })
}

/** An opaque next_cursor of the previous page of the same query. */
export function CursorParam (description: string) {
  return Type.String({ description, maxLength: 2048 })
}
