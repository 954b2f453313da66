import { PLATFORM_CODES, PLATFORM_DISPLAY_NAMES, resolvePlatform, type PlatformCode } from '../../../src/domain/platforms.js'

/**
 * The platforms as the dashboard shows them: the API's own table (src/domain/platforms.ts: codes
 * in canonical order, names, aliases), shared rather than copied so the two cannot drift.
 */

export const PLATFORMS = PLATFORM_CODES
export type Platform = PlatformCode
export const PLATFORM_NAMES = PLATFORM_DISPLAY_NAMES
export { ENGAGEMENT_DENOMINATOR } from '../../../src/domain/metrics.js'
export { POST_TYPES, type PostType } from '../../../src/domain/post-types.js'

export function isPlatform (value: string): value is Platform {
  return (PLATFORMS as readonly string[]).includes(value)
}

/** A display name for a code (`fb`) or a full name (`facebook`); unknown values as they are. */
export function platformName (value: string): string {
  const code = resolvePlatform(value)
  return code === undefined ? value : PLATFORM_NAMES[code]
}

/** The /me field listing a brand's accounts on a platform (`fb_accounts`, …). */
export function accountsField (platform: Platform): `${Platform}_accounts` {
  return `${platform}_accounts`
}
