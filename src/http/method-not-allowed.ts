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

/**
 * What the not-found handler answers for a request: the methods for a 405's `Allow`, or undefined
 * for a 404. A 405 only when the path is served and not with this method: a request whose method
 * the path is served with reached the handler because its route found nothing there (a static
 * prefix's wildcard route, `/dashboard/*` or `/docs/static/*`, asked for a file it does not have),
 * and an allowed method cannot be "not allowed".
 */
export function methodsToAllow (routes: ReadonlyArray<{ method: string, url: string }>, method: string, path: string): string[] | undefined {
  const allowed = allowedMethods(routes, path)
  return allowed.length === 0 || allowed.includes(method) ? undefined : allowed
}
