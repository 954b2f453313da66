import type { PlatformCode } from './platforms.js'

/**
 * Post categories (`post_type`, docs/posts.md) and how a platform's own post `type` maps to one.
 * The import derives `post_type` from `type` when a record leaves it out; docs/import.md shows
 * this table to operators, so change both together.
 */

export const POST_TYPES = ['video', 'image', 'carousel', 'reel', 'story', 'short', 'text', 'share', 'document', 'other'] as const
export type PostType = (typeof POST_TYPES)[number]

/** Accepted spellings besides the category names themselves. */
const POST_TYPE_ALIASES: Record<string, PostType> = { reels: 'reel' }

/** Every accepted spelling (lower case): the categories, then their aliases. */
export const POST_TYPE_SPELLINGS = [...POST_TYPES, ...Object.keys(POST_TYPE_ALIASES)]

/** Resolves a category name or alias, trimmed and case-insensitively; undefined when unknown. */
export function resolvePostType (value: string): PostType | undefined {
  const key = value.trim().toLowerCase()
  if ((POST_TYPES as readonly string[]).includes(key)) return key as PostType
  return POST_TYPE_ALIASES[key]
}

/**
 * Each platform's own type names (as their APIs spell them, compared case-insensitively) and the
 * category each one belongs to.
 */
export const PLATFORM_POST_TYPES: Record<PlatformCode, Record<string, PostType>> = {
  fb: {
    video: 'video',
    video_inline: 'video',
    video_autoplay: 'video',
    video_direct_response: 'video',
    live_video: 'video',
    reel: 'reel',
    reels: 'reel',
    photo: 'image',
    cover_photo: 'image',
    profile_media: 'image',
    album: 'carousel',
    multi_share: 'carousel',
    link: 'share',
    share: 'share',
    shared_story: 'share',
    status: 'text',
    note: 'text',
    story: 'story',
  },
  ig: {
    image: 'image',
    video: 'video',
    carousel_album: 'carousel',
    reels: 'reel',
    reel: 'reel',
    story: 'story',
  },
  tk: {
    video: 'video',
    photo: 'carousel',
    photo_mode: 'carousel',
  },
  yt: {
    short: 'short',
    shorts: 'short',
    video: 'video',
    live: 'video',
    premiere: 'video',
  },
  li: {
    document: 'document',
    article: 'text',
    text: 'text',
    image: 'image',
    multi_image: 'carousel',
    carousel: 'carousel',
    video: 'video',
    link: 'share',
    reshare: 'share',
    poll: 'other',
  },
  th: {
    text_post: 'text',
    image: 'image',
    video: 'video',
    carousel_album: 'carousel',
    repost_facade: 'share',
    quote: 'share',
  },
  sc: {
    story: 'story',
    saved_story: 'story',
    spotlight: 'short',
    snap: 'story',
  },
  da: {
    video: 'video',
    short: 'short',
    live: 'video',
  },
  pi: {
    pin: 'image',
    image_pin: 'image',
    video_pin: 'video',
    idea_pin: 'carousel',
    carousel_pin: 'carousel',
    story_pin: 'story',
  },
}

/**
 * The category of a platform's own post type: the platform's table first, then a type that is
 * itself a category name (e.g. `image` on any platform), else `other`.
 */
export function derivePostType (platform: PlatformCode, type: string | null): PostType {
  if (type === null) return 'other'
  const key = type.trim().toLowerCase()
  return PLATFORM_POST_TYPES[platform][key] ?? resolvePostType(key) ?? 'other'
}
