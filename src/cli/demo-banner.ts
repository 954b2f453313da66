import type { DemoAccess } from '../services/demo/first-start.js'
import { say, type CliIo } from './io.js'

/**
 * What `serve` prints on the embedded demo database once it listens: the demo partner's key pair
 * and a ready-to-paste login against the address it really listens on.
 */
export function printDemoAccess (io: CliIo, baseUrl: string, access: DemoAccess, options: { webhooksAllowPrivate?: boolean } = {}): void {
  if (access.state === 'unreadable') {
    say(io, `Demo key pair: ${access.file} is not readable as JSON; delete it and the database to start the demo afresh.`)
    return
  }
  const { credentials } = access
  const body = JSON.stringify({ api_client_key: credentials.api_client_key, api_secret_key: credentials.api_secret_key })
  say(io, '')
  say(io, `Demo partner "${credentials.name}" (${credentials.user_id}), brands ${(credentials.brand_ids ?? []).join(',')}; key pair from ${access.file}:`)
  say(io, `  api_client_key: ${credentials.api_client_key}`)
  say(io, `  api_secret_key: ${credentials.api_secret_key}`)
  if (!access.live) say(io, '  (this key pair no longer works: the demo user was rotated or removed; see `partner-analytics users list`)')
  say(io, 'Log in:')
  say(io, `  curl -s -X POST ${baseUrl}/auth/login -H 'Content-Type: application/json' -d '${body}'`)
  say(io, 'Then use the access_token it returns:')
  say(io, `  curl -s ${baseUrl}/me -H 'Authorization: Bearer ACCESS_TOKEN'`)
  say(io, `Or open the dashboard and sign in with the key pair above: ${baseUrl}/dashboard/`)
  say(io, 'For the README\'s curl walkthrough, the TypeScript and Python clients and the export, paste into your shell:')
  say(io, `  export PA_BASE_URL=${baseUrl}`)
  say(io, `  export PA_API_CLIENT_KEY=${credentials.api_client_key}`)
  say(io, `  export PA_API_SECRET_KEY=${credentials.api_secret_key}`)
  if (options.webhooksAllowPrivate !== true) {
    // Webhooks refuse http:// and private addresses (docs/webhooks.md "Safe targets"): say how to reach a receiver on this machine.
    say(io, 'Webhooks to a receiver on this machine (http://, localhost, a private address) are refused in production;')
    say(io, 'for local development only, start with WEBHOOK_ALLOW_PRIVATE=1 to allow them.')
  }
  say(io, '')
}

/** The address to paste into curl: a wildcard listen address is reached through loopback. */
export function loopbackUrl (host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
}
