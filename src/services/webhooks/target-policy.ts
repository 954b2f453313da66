import { Resolver as DnsResolver } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { LookupsBusy, type ResolvedAddress, type Resolver } from './name-lookups.js'

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

export type { ResolvedAddress, Resolver }

const LOOPBACK: ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]

/**
 * A resolver asking name servers through c-ares (node:dns's Resolver) for A and AAAA records:
 * `servers` (WEBHOOK_DNS_SERVERS, as setServers takes them), else the system's (those of
 * /etc/resolv.conf). Unlike getaddrinfo, which holds one of libuv's few threads until it returns,
 * its queries have their own timeout and tries and are cancelled when the answer is no longer
 * wanted, so a name server that never answers holds nothing. /etc/hosts is not read; `localhost`
 * and `*.localhost` are loopback by definition (RFC 6761).
 */
export function dnsResolver (servers?: readonly string[]): Resolver {
  return async (hostname, signal) => {
    const name = hostname.toLowerCase().replace(/\.$/, '')
    if (name === 'localhost' || name.endsWith('.localhost')) return LOOPBACK
    const resolver = new DnsResolver({ timeout: 2000, tries: 2 })
    if (servers !== undefined) resolver.setServers(servers)
    const cancel = (): void => resolver.cancel()
    signal?.addEventListener('abort', cancel, { once: true })
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)])
      const found: ResolvedAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
      ]
      if (found.length === 0 && v4.status === 'rejected') throw v4.reason
      return found
    } finally {
      signal?.removeEventListener('abort', cancel)
    }
  }
}

/** The system's name servers (/etc/resolv.conf), through c-ares. */
export const systemResolver: Resolver = dnsResolver()

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
 * address among public ones is refused: which one a client gets is not ours to predict). `lookup`
 * is the partner's bounded lookups (name-lookups.ts); a LookupsBusy from it is passed on (the
 * service was busy: no judgement of the host), any other failure makes the host unresolvable.
 */
export async function resolveTarget (url: URL, allowPrivate: boolean, lookup: (hostname: string) => Promise<ResolvedAddress[]>): Promise<ResolvedAddress | TargetRefusal> {
  // URL keeps IPv6 literals in brackets, and has already normalised IPv4 spellings (0x7f.1, 2130706433).
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const literal = isIP(host)
  if (literal !== 0) return judge(host, allowPrivate) ?? { address: host, family: literal === 6 ? 6 : 4 }
  let addresses: ResolvedAddress[]
  try {
    addresses = await lookup(host)
  } catch (error) {
    if (error instanceof LookupsBusy) throw error
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
