import fastJsonStringify, { type Options } from 'fast-json-stringify'

/**
 * Response serialization from the routes' schemas, in the contract's field order. fast-json-
 * stringify writes a schema's required properties first and the optional ones after, which would
 * move `platform` and `brand_id` behind the metrics of an analytics entry; so each response schema
 * is compiled with its `required` lists lifted. The route's schema stays the documented one (the
 * OpenAPI document and the tests that validate real responses against it keep the requirements).
 */
export function buildResponseSerializer (externalSchemas: Record<string, unknown>, serializerOpts: Options = {}) {
  return ({ schema }: { schema: unknown }) => fastJsonStringify(withoutRequired(schema) as never, { ...serializerOpts, schema: externalSchemas as never })
}

const lifted = new WeakMap<object, unknown>()

function withoutRequired (schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object') return schema
  const known = lifted.get(schema)
  if (known !== undefined) return known
  const copy: unknown = Array.isArray(schema)
    ? schema.map(withoutRequired)
    : Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'required').map(([key, value]) => [key, withoutRequired(value)]))
  lifted.set(schema, copy)
  return copy
}
