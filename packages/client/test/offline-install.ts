/**
 * A package-lock.json for a scratch project that depends on the packed client tarball alone,
 * copied from this repository's lock: the same versions and integrity hashes as the workspace, so
 * `npm ci --offline` installs the client's runtime dependencies (commander, cli-progress and what
 * they need) from the npm cache that this repository's own `npm ci` filled, with no network and
 * no registry metadata. A plain `npm install` of the tarball would resolve the version ranges from
 * cached registry metadata instead: it works only as long as that metadata is cached, and may
 * pick versions other than the ones this repository tests.
 */

interface LockEntry {
  version?: string
  resolved?: string
  integrity?: string
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  [field: string]: unknown
}

export interface Lockfile { name?: string, lockfileVersion: number, requires?: boolean, packages: Record<string, LockEntry> }

const WORKSPACE = 'packages/client'
const INSTALLED = 'node_modules/@partner-analytics/client'

/** The folder whose node_modules is searched next, as Node does: `a/node_modules/b` → `a`; `packages/client` → the root. */
function parentOf (location: string): string | undefined {
  if (location === '') return undefined
  const match = /^(.*?)\/?node_modules\/(?:@[^/]+\/)?[^/]+$/.exec(location)
  return match === null ? '' : match[1]
}

/** Where Node finds `name` when required from the package at `from`. */
function resolveLocation (packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let dir: string | undefined = from; dir !== undefined; dir = parentOf(dir)) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`
    if (packages[candidate] !== undefined) return candidate
  }
  return undefined
}

/**
 * This repository's lock records no `resolved` URLs, and without one npm needs the registry's
 * metadata to find a tarball. Given the registry's own URL pattern, npm finds the tarball in its
 * cache by URL and integrity, with no metadata at all.
 */
function tarballUrl (registry: string, location: string, version: string): string {
  const name = location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length)
  return `${registry.replace(/\/+$/, '')}/${name}/-/${name.split('/').at(-1) ?? name}-${version}.tgz`
}

/**
 * `tarballSpec` as the scratch project's package.json names it, e.g. `file:../partner-analytics-client-0.1.0.tgz`;
 * `registry` the one npm is configured with (the URLs its cache is keyed by).
 */
export function lockfileForTarball (rootLock: Lockfile, tarballSpec: string, registry: string): Lockfile {
  const client = rootLock.packages[WORKSPACE]
  if (client === undefined) throw new Error(`${WORKSPACE} is not in package-lock.json`)
  const packages: Record<string, LockEntry> = {
    '': { name: 'client-install-check', version: '0.0.0', dependencies: { '@partner-analytics/client': tarballSpec } },
    [INSTALLED]: { ...client, name: undefined, resolved: tarballSpec },
  }
  const visit = (from: string, name: string, optional = false) => {
    const location = resolveLocation(rootLock.packages, from, name)
    if (location === undefined && optional) return // an optional dependency for another platform
    if (location === undefined) throw new Error(`${name}, needed by ${from}, is not in package-lock.json`)
    // A dependency nested under the workspace folder is nested under the installed package instead.
    const target = location.startsWith(`${WORKSPACE}/`) ? `${INSTALLED}/${location.slice(WORKSPACE.length + 1)}` : location
    if (packages[target] !== undefined) return
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = rootLock.packages[location] as LockEntry
    packages[target] = entry.resolved === undefined && entry.version !== undefined ? { ...entry, resolved: tarballUrl(registry, location, entry.version) } : entry
    for (const dependency of Object.keys(entry.dependencies ?? {})) visit(location, dependency)
    for (const dependency of Object.keys(entry.optionalDependencies ?? {})) visit(location, dependency, true)
  }
  for (const dependency of Object.keys(client.dependencies ?? {})) visit(WORKSPACE, dependency)
  return { name: 'client-install-check', lockfileVersion: 3, requires: true, packages }
}
