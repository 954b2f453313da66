import { Type, type Static } from '@sinclair/typebox'
import { PLATFORM_CODES, PLATFORM_NAMES } from '../../domain/platforms.js'
import { component } from './components.js'
import { CursorParam } from './params.schemas.js'

/** GET /me: the query, the brand with its accounts, and the profile page (docs/api-reference.md "GET /me"). */

export const ME_DEFAULT_LIMIT = 20
export const ME_MAX_LIMIT = 100

export const MeQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: ME_MAX_LIMIT, default: ME_DEFAULT_LIMIT, description: `Brands per page, 1 to ${ME_MAX_LIMIT}` }),
  cursor: Type.Optional(CursorParam('next_cursor of the previous page')),
})
export type MeQuery = Static<typeof MeQuery>

export const AccountReference = component('AccountReference', Type.Object({
  account_id: Type.Integer({ description: 'Unique on its platform only' }),
  account_name: Type.String(),
  network_id: Type.Union([Type.String(), Type.Null()], { description: 'Platform-specific identifier' }),
}))

export const Brand = component('Brand', Type.Object({
  brand_id: Type.Integer(),
  brand_name: Type.String(),
  ...Object.fromEntries(PLATFORM_CODES.map((code) => [`${code}_accounts`, Type.Array(AccountReference, { description: `The brand's ${PLATFORM_NAMES[code]} accounts, by account_id; empty when none` })])),
}))

export const MeResponse = component('Me', Type.Object({
  name: Type.String({ description: 'User display name' }),
  brands: Type.Array(Brand, { description: 'One page of accessible brands, by brand_id ascending' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page' }),
}))
export type MeResponse = Static<typeof MeResponse>
