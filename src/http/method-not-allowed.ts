/**
 * The methods served on a path, from the app's route table: what `Allow` lists when a known path
 * is asked with another method (405), and empty for a path no route serves (404).
 */

const patterns = new Map<string, RegExp>()

/** A route URL as a regular expression over request paths: `:param` is one segment, `*` the rest. */
function patternOf (url: string): RegExp {
  let pattern = patterns.get(url)
  if (pattern === undefined) {
    const source = url.split(/(:[A-Za-z0-9_]+|\*)/).map((part) => {
      if (part === '*') return '.*'
      if (part.startsWith(':')) return '[^/]+'
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    }).join('')
    pattern = new RegExp(`^${source}$`)
    patterns.set(url, pattern)
  }
  return pattern
}

/** The methods of every route matching the path (no query string), sorted: e.g. ['GET', 'HEAD']. */
export function allowedMethods (routes: ReadonlyArray<{ method: string, url: string }>, path: string): string[] {
  const methods = new Set<string>()
  for (const route of routes) if (patternOf(route.url).test(path)) methods.add(route.method)
  // Fastify adds a HEAD route for every GET route, and the route table can miss the GET one (a
  // plugin's prefixed `/` also serves `prefix/`, announced only for HEAD): HEAD implies GET.
  if (methods.has('HEAD')) methods.add('GET')
  return [...methods].sort()
}
