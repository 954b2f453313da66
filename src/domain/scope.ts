import type { PlatformCode } from './platforms.js'

/**
 * What a request may read: the brands or accounts its brand_id / account_id / platform
 * parameters name, once access has been checked (src/services/access). Reports and the posts
 * listing read exactly this.
 */

/** An account and its metadata; ids are unique per platform only. */
export interface Account {
  platform: PlatformCode
  account_id: number
  brand_id: number
  account_name: string
  network_id: string | null
  storage_avatar: string | null
  permalink: string | null
}

/** The scoping parameters of a request, parsed (distinct, ascending ids; canonical platform order). */
export interface ScopeRequest {
  brandIds?: number[] | undefined
  accountIds?: number[] | undefined
  /** undefined = every platform. */
  platforms?: PlatformCode[] | undefined
}

export type Scope =
  | {
    kind: 'brands'
    /** Brands whose accounts are read, ascending: the given brand_ids, else every accessible brand. */
    brandIds: number[]
    /** The requested platforms, or undefined for every platform. */
    platforms: PlatformCode[] | undefined
    /** Set when exactly one brand_id was given (the envelope's `brand_id`). */
    singleBrandId: number | undefined
  }
  | {
    kind: 'accounts'
    /** The given brand_ids, else the brands of the given accounts; ascending. */
    brandIds: number[]
    /** The one platform the accounts live on. */
    platform: PlatformCode
    /** The accounts, ascending by id, with their metadata. */
    accounts: Account[]
    singleBrandId: number | undefined
  }
