/**
 * Query parameters arrive as strings (src/http/query/query-string.ts). Before Ajv validates them
 * against the route's schema, each one is turned into the type its schema declares, strictly:
 * Ajv's own coercion would read `0x10`, `1e2` and `1.0` as integers, and the contract calls only
 * plain decimal digits integers (docs/api-reference.md "GET /me"; docs/api-reference.md "GET /analytics/"). A value that does not convert is left as
 * it came, and Ajv then reports it against the schema, so the schema stays the one judge.
 *
 * - integer: an optional minus and digits (a negative number is an integer, refused by its range);
 * - boolean: true/false/1/0/yes/no/on/off, case-insensitive (docs/api-reference.md "GET /analytics/");
 * - array (a comma-separated list): items trimmed; integer items digits only (no signs); items of
 *   an enumerated string lower-cased (platforms and post types are case-insensitive); duplicates
 *   collapsed, so `maxItems` counts distinct items.
 */

interface PropertySchema {
  type?: string
  items?: PropertySchema
  enum?: unknown[]
}

type Coercer = (raw: string) => unknown

const SCALAR_INTEGER = /^-?[0-9]+$/
const LIST_INTEGER = /^[0-9]+$/

const BOOLEAN_WORDS = new Map<string, boolean>([
  ['true', true], ['1', true], ['yes', true], ['on', true],
  ['false', false], ['0', false], ['no', false], ['off', false],
])

/**
 * Digits beyond 2^53 − 1 stay text: as a number they would be rounded (or Infinity), and the 422
 * must quote the item the client sent (validation-issues.ts reports them as `int_range`).
 */
function listInteger (raw: string): unknown {
  if (!LIST_INTEGER.test(raw)) return raw
  const value = Number(raw)
  return Number.isSafeInteger(value) ? value : raw
}

/** A scalar integer too long for a double is beyond any range: the largest double of its sign. */
function scalarInteger (raw: string): unknown {
  if (!SCALAR_INTEGER.test(raw)) return raw
  const value = Number(raw)
  return Number.isFinite(value) ? value : (raw.startsWith('-') ? -Number.MAX_VALUE : Number.MAX_VALUE)
}

function itemCoercer (items: PropertySchema | undefined): Coercer {
  if (items?.type === 'integer') return listInteger
  if (items?.type === 'string' && Array.isArray(items.enum)) return (raw) => raw.toLowerCase()
  return (raw) => raw
}

function coercerFor (schema: PropertySchema): Coercer | undefined {
  switch (schema.type) {
    case 'integer':
      return scalarInteger
    case 'boolean':
      return (raw) => BOOLEAN_WORDS.get(raw.toLowerCase()) ?? raw
    case 'array': {
      const item = itemCoercer(schema.items)
      return (raw) => [...new Set(raw.split(',').map((part) => item(part.trim())))]
    }
    default:
      return undefined
  }
}

/** Per querystring schema: the coercer of each parameter that needs one (computed once). */
const plans = new WeakMap<object, ReadonlyMap<string, Coercer>>()

function planFor (schema: { properties?: Record<string, PropertySchema> }): ReadonlyMap<string, Coercer> {
  let plan = plans.get(schema)
  if (plan === undefined) {
    const coercers = new Map<string, Coercer>()
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const coercer = coercerFor(property)
      if (coercer !== undefined) coercers.set(name, coercer)
    }
    plan = coercers
    plans.set(schema, plan)
  }
  return plan
}

/** The query with every declared parameter converted to its schema's type where it converts. */
export function coerceQuery (query: Readonly<Record<string, unknown>>, schema: object): Record<string, unknown> {
  const plan = planFor(schema as { properties?: Record<string, PropertySchema> })
  const coerced: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [name, value] of Object.entries(query)) {
    const coercer = plan.get(name)
    coerced[name] = coercer !== undefined && typeof value === 'string' ? coercer(value) : value
  }
  return coerced
}
