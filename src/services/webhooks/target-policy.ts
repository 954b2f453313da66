import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * Which URLs a webhook may target (docs/webhooks.md "Safe targets"): `https://` only, no
 * credentials in the URL, and a host whose every address is public — judged when the URL is
 * given and again at every attempt, and the attempt connects to the very address judged, so a
 * name that later resolves to 127.0.0.1 or a cloud metadata address (DNS rebinding) is refused
 * rather than reached. Address ranges are ipaddr.js's (every special-purpose range of IANA's
 * registries: loopback, private, link-local, unique-local, carrier-grade NAT, multicast, reserved,
 * the IPv6 translation prefixes…); only its `unicast` range is public, and for IPv6 only inside 2000::/3 (see addressRange). WEBHOOK_ALLOW_PRIVATE
 * lifts the https and address rules, for development and tests only.
 */

export type TargetRule = 'invalid_url' | 'https_required' | 'credentials_not_allowed' | 'unresolvable' | 'private_address'

export interface TargetRefusal {
  rule: TargetRule
  message: string
}

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Every address a host name resolves to. Tests inject their own. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>

/**
 * The system's resolver (getaddrinfo: /etc/hosts, then DNS), as every client on the machine sees
 * names. getaddrinfo runs on libuv's small thread pool, which compression and file reads share:
 * at most MAX_LOOKUPS_AT_ONCE lookups run at once, so slow name servers behind some webhooks
 * cannot take the pool from the rest of the process (the others wait, within their time limit).
 */
const MAX_LOOKUPS_AT_ONCE = 2
let lookupsRunning = 0
const lookupQueue: Array<() => void> = []

export const systemResolver: Resolver = async (hostname) => {
  if (lookupsRunning >= MAX_LOOKUPS_AT_ONCE) await new Promise<void>((resolve) => lookupQueue.push(resolve))
  lookupsRunning++
  try {
    const found = await lookup(hostname, { all: true, verbatim: true })
    return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }))
  } finally {
    lookupsRunning--
    lookupQueue.shift()?.()
  }
}

/** The longest a resolution may take before the host counts as unresolvable. */
const RESOLVE_TIMEOUT_MS = 5000

export function isRefusal (value: unknown): value is TargetRefusal {
  return typeof value === 'object' && value !== null && 'rule' in value
}

/** The URL's own rules (no network): a parsed URL, or the rule it breaks. */
export function checkUrl (text: string, allowPrivate: boolean): URL | TargetRefusal {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { rule: 'invalid_url', message: 'must be an absolute URL, e.g. https://example.com/webhooks' }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { rule: 'invalid_url', message: `must use https:// (not ${url.protocol}//)` }
  if (url.protocol === 'http:' && !allowPrivate) return { rule: 'https_required', message: 'must use https://' }
  if (url.username !== '' || url.password !== '') return { rule: 'credentials_not_allowed', message: 'must not contain a user name or password: deliveries are signed instead' }
  return url
}

/** IPv6's global unicast block: the only IPv6 addresses routed on the internet (RFC 4291). */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')
/** `::a.b.c.d`, the deprecated IPv4-compatible addresses (RFC 4291 2.5.5.1), `::` and `::1` among them. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96')

/**
 * The range ipaddr.js puts an address in; `unicast` (and only it) is the public internet;
 * `invalid` for what is no address. ipaddr.js calls every IPv6 address outside its special ranges
 * `unicast`, so an IPv6 address is public only inside 2000::/3 as well (else `reserved`); an
 * IPv4-mapped address is judged as its IPv4 address (ipaddr.js's `process`), and an IPv4-compatible
 * one (`::127.0.0.1`, which URL parsing spells `::7f00:1`) by its IPv4 address's range, or
 * `ipv4Compatible` when that is public: such an address is never routed, so it never passes.
 */
export function addressRange (address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid'
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4') return parsed.range()
  const v6 = parsed as ipaddr.IPv6
  const range = v6.range()
  if (range !== 'unicast') return range
  if (v6.match(IPV4_COMPATIBLE)) {
    const embedded = ipaddr.fromByteArray(v6.toByteArray().slice(12)).range()
    return embedded === 'unicast' ? 'ipv4Compatible' : embedded
  }
  return v6.match(GLOBAL_UNICAST_V6) ? 'unicast' : 'reserved'
}

function judge (address: string, allowPrivate: boolean): TargetRefusal | undefined {
  if (allowPrivate) return undefined
  const range = addressRange(address)
  return range === 'unicast' ? undefined : { rule: 'private_address', message: `must resolve to public addresses only (${address} is ${range})` }
}

/**
 * The address an attempt connects to: the host itself when it is an address, else the first of
 * the addresses it resolves to — provided every one of them is public (a name with one private
 * address among public ones is refused: which one a client gets is not ours to predict).
 */
export async function resolveTarget (url: URL, allowPrivate: boolean, resolver: Resolver): Promise<ResolvedAddress | TargetRefusal> {
  // URL keeps IPv6 literals in brackets, and has already normalised IPv4 spellings (0x7f.1, 2130706433).
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const literal = isIP(host)
  if (literal !== 0) return judge(host, allowPrivate) ?? { address: host, family: literal === 6 ? 6 : 4 }
  let addresses: ResolvedAddress[]
  try {
    addresses = await withTimeout(resolver(host), RESOLVE_TIMEOUT_MS)
  } catch {
    return { rule: 'unresolvable', message: `host ${host} does not resolve` }
  }
  const first = addresses[0]
  if (first === undefined) return { rule: 'unresolvable', message: `host ${host} does not resolve` }
  for (const { address } of addresses) {
    const refusal = judge(address, allowPrivate)
    if (refusal !== undefined) return { ...refusal, message: `must resolve to public addresses only (${host} resolves to ${address}, ${addressRange(address)})` }
  }
  return first
}

async function withTimeout<T> (promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([promise, new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error('timeout')), ms) })])
  } finally {
    clearTimeout(timer)
  }
}
