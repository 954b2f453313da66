/**
 * The nine platforms: codes, aliases, full names, and which metrics each one reports.
 * Everything that depends on "which platform has which field" reads this one table.
 */

/** Canonical order (docs/api-reference.md "Basics"): output order and the order of `platforms`. */
export const PLATFORM_CODES = ['fb', 'ig', 'tk', 'yt', 'li', 'th', 'sc', 'da', 'pi'] as const
export type PlatformCode = (typeof PLATFORM_CODES)[number]

export const PLATFORM_NAMES: Record<PlatformCode, string> = {
  fb: 'facebook',
  ig: 'instagram',
  tk: 'tiktok',
  yt: 'youtube',
  li: 'linkedin',
  th: 'threads',
  sc: 'snapchat',
  da: 'dailymotion',
  pi: 'pinterest',
}

/** How people write each platform's name (documents, the dashboard). */
export const PLATFORM_DISPLAY_NAMES: Record<PlatformCode, string> = {
  fb: 'Facebook',
  ig: 'Instagram',
  tk: 'TikTok',
  yt: 'YouTube',
  li: 'LinkedIn',
  th: 'Threads',
  sc: 'Snapchat',
  da: 'Dailymotion',
  pi: 'Pinterest',
}

/** Lower-case alias → code; both the code and the full name are accepted (docs/api-reference.md platform table). */
const ALIASES = new Map<string, PlatformCode>(
  PLATFORM_CODES.flatMap((code) => [[code, code], [PLATFORM_NAMES[code], code]] as const),
)

/** Every accepted spelling (lower case): the codes, then the full names. */
export const PLATFORM_ALIASES = [...PLATFORM_CODES, ...PLATFORM_CODES.map((code) => PLATFORM_NAMES[code])]

/** Resolves a code or alias, case-insensitively and trimmed; undefined when unknown. */
export function resolvePlatform (value: string): PlatformCode | undefined {
  return ALIASES.get(value.trim().toLowerCase())
}

export function platformRank (code: PlatformCode): number {
  return PLATFORM_CODES.indexOf(code)
}

/** Sorts codes into canonical order (a new array). */
export function sortPlatforms (codes: Iterable<PlatformCode>): PlatformCode[] {
  return [...new Set(codes)].sort((a, b) => platformRank(a) - platformRank(b))
}

/** Key of an account: ids are unique per platform only (docs/api-reference.md "Basics"). */
export function accountKey (platform: PlatformCode, accountId: number): string {
  return `${platform}:${accountId}`
}
