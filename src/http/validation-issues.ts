import type { ValidationIssue } from '../domain/errors.js'
import { countOf } from '../domain/plural.js'

/**
 * Ajv's errors → the contract's 422 items (docs/api-reference.md "Errors"): one item per offending parameter or
 * body field, `loc` naming it (`["query", "brand_id"]`, `["body", "api_client_key"]`), with a
 * message and type in the style the original API used. Messages are derived from the schema that
 * failed (its keyword, bounds, item title), so a route's schema is the one place its rules live.
 * Ajv runs with `verbose`, so each error carries the failing value and the schema around it.
 */

export interface AjvIssue {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
  message?: string
  /** The failing value (verbose mode). */
  data?: unknown
  /** The schema holding the failing keyword (verbose mode). */
  parentSchema?: { type?: unknown, title?: string, description?: string, enum?: unknown[], minimum?: number, maximum?: number }
}

const LOCATION_BY_CONTEXT: Record<string, string> = {
  querystring: 'query',
  body: 'body',
  params: 'path',
  headers: 'header',
}

/** One contract issue per offending field, from Ajv's list (which may name a field many times). */
export function issuesFromAjv (context: string, errors: readonly AjvIssue[]): ValidationIssue[] {
  const location = LOCATION_BY_CONTEXT[context] ?? context
  const byField = new Map<string, ValidationIssue>()
  for (const error of errors) {
    const path = error.instancePath.split('/').filter((part) => part !== '')
    if (error.keyword === 'required') path.push(String(error.params.missingProperty))
    if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty))
    const field = path[0]
    const key = field ?? ''
    if (byField.has(key)) continue
    // An item of a list parameter is reported on the parameter: `loc` names what the client sent.
    const inItem = path.length > 1
    byField.set(key, { loc: field === undefined ? [location] : [location, field], ...(inItem ? describeItem(error) : describe(error, field === undefined)) })
  }
  return [...byField.values()]
}

type Description = Omit<ValidationIssue, 'loc'>

/** A whole parameter or body field (or, when `atRoot`, the body itself). */
function describe (error: AjvIssue, atRoot: boolean): Description {
  const params = error.params
  switch (error.keyword) {
    case 'required':
      return { msg: 'Field required', type: 'missing', ctx: {} }
    case 'type':
      return describeType(String(params.type), atRoot)
    case 'minimum':
      return { msg: `Input should be greater than or equal to ${String(params.limit)}`, type: 'greater_than_equal', ctx: { limit_value: params.limit } }
    case 'maximum':
      return { msg: `Input should be less than or equal to ${String(params.limit)}`, type: 'less_than_equal', ctx: { limit_value: params.limit } }
    case 'minLength':
      return { msg: `String should have at least ${countOf(Number(params.limit), 'character')}`, type: 'string_too_short', ctx: { limit_value: params.limit } }
    case 'maxLength':
      return { msg: `String should have at most ${countOf(Number(params.limit), 'character')}`, type: 'string_too_long', ctx: { limit_value: params.limit } }
    case 'additionalProperties':
      return { msg: 'Extra inputs are not permitted', type: 'extra_forbidden', ctx: {} }
    case 'minItems':
      return { msg: `List should have at least ${countOf(Number(params.limit), 'item')}`, type: 'too_short', ctx: { min_length: params.limit } }
    case 'uniqueItems':
      return { msg: 'List items must be unique', type: 'unique_items', ctx: {} }
    case 'maxItems':
      return { msg: `At most ${String(params.limit)} distinct ids are allowed; got ${Array.isArray(error.data) ? error.data.length : '?'}`, type: 'too_long', ctx: { max_length: params.limit, actual_length: Array.isArray(error.data) ? error.data.length : null } }
    case 'enum': {
      // The contract words a closed list of words as a pattern (docs/api-reference.md: `^(daily|agg|monthly)$`).
      const pattern = `^(${(params.allowedValues as unknown[]).join('|')})$`
      return { msg: `String should match pattern '${pattern}'`, type: 'string_pattern_mismatch', ctx: { pattern } }
    }
    case 'pattern':
      return { msg: `String should match pattern '${String(params.pattern)}'`, type: 'string_pattern_mismatch', ctx: { pattern: params.pattern } }
    case 'format':
      return params.format === 'date'
        ? { msg: 'Input should be a valid date in the format YYYY-MM-DD', type: 'date_parsing', ctx: {} }
        : { msg: `Input should be a valid ${String(params.format)}`, type: `${String(params.format)}_parsing`, ctx: {} }
    default:
      return { msg: error.message ?? 'Invalid value', type: error.keyword, ctx: {} }
  }
}

function describeType (type: string, atRoot: boolean): Description {
  switch (type) {
    case 'integer':
      return { msg: 'Input should be a valid integer', type: 'int_parsing', ctx: {} }
    case 'boolean':
      return { msg: 'Input should be a valid boolean (true, false, 1, 0, yes, no, on, off)', type: 'bool_parsing', ctx: {} }
    case 'object':
      return atRoot
        ? { msg: 'Input should be a valid JSON object', type: 'model_attributes_type', ctx: {} }
        : { msg: 'Input should be a valid object', type: 'object_type', ctx: {} }
    default:
      return { msg: `Input should be a valid ${type}`, type: `${type}_type`, ctx: {} }
  }
}

/** One item of a comma-separated list parameter: ids or enumerated words. */
function describeItem (error: AjvIssue): Description {
  const item = error.data === undefined ? '' : String(error.data)
  const schema = error.parentSchema ?? {}
  switch (error.keyword) {
    case 'type':
      // Digits left as text by the coercion are an integer too long to read: out of range.
      if (/^[0-9]+$/.test(item) && schema.maximum !== undefined) return intRange(schema, item)
      return { msg: `Each item must be a positive integer; got ${JSON.stringify(item)}`, type: 'int_parsing', ctx: { item } }
    case 'minimum':
    case 'maximum':
      return intRange(schema, item)
    case 'enum':
      return { msg: `Unknown ${schema.title ?? 'value'} ${JSON.stringify(item)}; ${schema.description ?? 'see the allowed values'}`, type: 'enum', ctx: { item, expected: schema.enum ?? [] } }
    default:
      return { msg: error.message ?? 'Invalid item', type: error.keyword, ctx: { item } }
  }
}

function intRange (schema: NonNullable<AjvIssue['parentSchema']>, item: string): Description {
  return { msg: `Each item must be an integer between ${String(schema.minimum)} and ${String(schema.maximum)}; got ${item}`, type: 'int_range', ctx: { item } }
}
