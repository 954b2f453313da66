import type { Command } from 'commander'
import { parseDuration } from '../arguments.js'
import { withServices } from '../context.js'
import { printJson, say, type CliIo } from '../io.js'

/**
 * `credentials …`: a user's key pairs (docs/authentication.md "Key pairs and rotation"). At most
 * two are live at once, so a new pair can be rolled out before the old one is retired.
 */
export function registerCredentialCommands (program: Command, io: CliIo): void {
  const credentials = program.command('credentials').description('Manage partner key pairs (at most two live per user)')

  credentials.command('create <user_id>')
    .description('Issue a further key pair beside the live one (at most two live; the secret is shown only here)')
    .option('--json', 'print one JSON object on stdout')
    .action(async (userId: string, options: { json?: boolean }) => {
      const issued = await withServices(io, ({ services }) => services.users.createCredential(userId))
      if (options.json === true) return printJson(io, issued)
      say(io, `New key pair for ${issued.user_id}; the other live pair keeps working until revoked.`)
      say(io, `api_client_key: ${issued.api_client_key}`)
      say(io, `api_secret_key: ${issued.api_secret_key}`)
    })

  credentials.command('list <user_id>')
    .description('List a user\'s key pairs (client keys only), newest first, with when each stops or stopped working')
    .option('--json', 'print one JSON object on stdout')
    .action(async (userId: string, options: { json?: boolean }) => {
      const listed = await withServices(io, ({ services }) => services.users.listCredentials(userId))
      if (options.json === true) return printJson(io, listed)
      if (listed.credentials.length === 0) return say(io, `User ${userId} has no key pairs.`)
      for (const credential of listed.credentials) {
        const state = credential.live
          ? (credential.revoked_at === null ? 'live' : `live until ${credential.revoked_at}`)
          : `revoked ${credential.revoked_at ?? ''}`
        say(io, `${credential.api_client_key}  created ${credential.created_at}  ${state}`)
      }
    })

  credentials.command('revoke <api_client_key>')
    .description('Stop a key pair now (also one in its grace period): login fails at once, its tokens within 2 s')
    .option('--json', 'print one JSON object on stdout')
    .action(async (clientKey: string, options: { json?: boolean }) => {
      const revoked = await withServices(io, ({ services }) => services.users.revokeCredential(clientKey))
      if (options.json === true) return printJson(io, revoked)
      say(io, `Key pair ${revoked.api_client_key} of ${revoked.user_id} revoked (${revoked.revoked_at}).`)
    })

  credentials.command('rotate <user_id>')
    .description('Issue a new key pair and retire the old one: at once, or after --grace')
    .option('--grace <duration>', 'keep the old pair working this long (90s, 15m, 24h, 7d, 1h30m; at most 30d)', parseDuration)
    .option('--json', 'print one JSON object on stdout')
    .action(async (userId: string, options: { grace?: number, json?: boolean }) => {
      const issued = await withServices(io, ({ services }) => services.users.rotate(userId, options.grace ?? 0))
      if (options.json === true) return printJson(io, issued)
      say(io, `New key pair for ${issued.user_id}.`)
      say(io, `api_client_key: ${issued.api_client_key}`)
      say(io, `api_secret_key: ${issued.api_secret_key}`)
      for (const old of issued.replaced) {
        say(io, options.grace === undefined
          ? `The old key pair ${old.api_client_key} no longer works.`
          : `The old key pair ${old.api_client_key} keeps working until ${old.revoked_at}.`)
      }
    })
}
