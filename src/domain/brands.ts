import type { PlatformCode } from './platforms.js'

/** A brand as GET /me lists it: its accounts grouped by platform (docs/api-reference.md "GET /me"). */

export interface AccountReference {
  account_id: number
  account_name: string
  network_id: string | null
}

export type AccountListName = `${PlatformCode}_accounts`

export type BrandWithAccounts = { brand_id: number, brand_name: string } & Record<AccountListName, AccountReference[]>

export interface BrandPage {
  brands: BrandWithAccounts[]
  /** The last brand_id of this page when another page follows; undefined on the last page. */
  nextAfterBrandId: number | undefined
}
