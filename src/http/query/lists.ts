import { CHANGE_EVENT_TYPES, type ChangeEventType } from '../../domain/changes.js'
import { resolvePlatform, sortPlatforms, type PlatformCode } from '../../domain/platforms.js'
import { POST_TYPES, resolvePostType, type PostType } from '../../domain/post-types.js'

/**
 * The list parameters once their schema has accepted them (every item is a valid id, platform
 * spelling or post type): the rules code still applies — aliases resolved, duplicates collapsed,
 * the canonical order.
 */

/** Ids ascending (the coercion already collapsed duplicates). */
export function sortedIds (ids: readonly number[] | undefined): number[] | undefined {
  return ids === undefined ? undefined : [...new Set(ids)].sort((a, b) => a - b)
}

/** Platform codes in canonical order, from codes or full names. */
export function platformCodes (spellings: readonly string[] | undefined): PlatformCode[] | undefined {
  return spellings === undefined ? undefined : sortPlatforms(spellings.map((spelling) => resolvePlatform(spelling) as PlatformCode))
}

/** Post categories in catalogue order (`reels` = `reel`). */
export function postTypes (spellings: readonly string[] | undefined): PostType[] | undefined {
  if (spellings === undefined) return undefined
  const found = new Set(spellings.map((spelling) => resolvePostType(spelling) as PostType))
  return POST_TYPES.filter((type) => found.has(type))
}

/** Change event types in the documented order (the coercion already collapsed duplicates). */
export function changeEventTypes (types: readonly string[] | undefined): ChangeEventType[] | undefined {
  if (types === undefined) return undefined
  const found = new Set(types)
  return CHANGE_EVENT_TYPES.filter((type) => found.has(type))
}
