/**
 * Query-string rules of docs/api-reference.md "Basics", applied once for every route: a repeated parameter
 * keeps its last value, values are trimmed, and only then does an empty value mean "absent".
 */
export function parseQueryString (raw: string): Record<string, string> {
  // No prototype: a parameter named __proto__ must stay a plain value.
  const result: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [name, value] of new URLSearchParams(raw)) {
    const trimmed = value.trim()
    if (trimmed === '') delete result[name]
    else result[name] = trimmed
  }
  return result
}
