import type { Command } from 'commander'
import { parseIdList } from '../arguments.js'
import { withServices } from '../context.js'
import { CommandError } from '../errors.js'
import { EXIT, printJson, say, type CliIo } from '../io.js'

/** `users …`: thin wrappers over users.service. Required options say so in their help. */
export function registerUserCommands (program: Command, io: CliIo): void {
  const users = program.command('users').description('Create, list and delete partner users and manage their access')

  users.command('create')
    .description('Create a user, grant it brands and issue its key pair (the secret is shown only here)')
    .requiredOption('--name <name>', 'display name of the user (required)')
    .option('--brands <ids>', 'comma-separated brand ids to grant (default: none)', parseIdList)
    .option('--json', 'print one JSON object on stdout')
    .action(async (options: { name: string, brands?: number[], json?: boolean }) => {
      const created = await withServices(io, ({ services }) => services.users.create({ name: options.name, brandIds: options.brands ?? [] }))
      if (options.json === true) return printJson(io, created)
      say(io, `Created user ${created.user_id} (${created.name}) with brands [${created.brand_ids.join(', ')}]`)
      say(io, `api_client_key: ${created.api_client_key}`)
      say(io, `api_secret_key: ${created.api_secret_key}`)
      say(io, 'The secret is shown only now: hand it to the partner over a secure channel.')
    })

  users.command('list')
    .description('List users with their state, live client keys and brands')
    .option('--json', 'print one JSON object on stdout')
    .action(async (options: { json?: boolean }) => {
      const list = await withServices(io, ({ services }) => services.users.list())
      if (options.json === true) return printJson(io, { users: list })
      if (list.length === 0) return say(io, 'No users.')
      for (const user of list) {
        say(io, [user.user_id, user.disabled ? 'disabled' : 'active', user.api_client_keys.length === 0 ? '-' : user.api_client_keys.join(','),
          `brands=[${user.brand_ids.join(',')}]`, user.created_at, user.name].join('  '))
      }
    })

  for (const [name, disabled] of [['disable', true], ['enable', false]] as const) {
    users.command(`${name} <user_id>`)
      .description(disabled ? 'Disable a user: login and existing tokens are refused (403 USER_DISABLED)' : 'Enable a disabled user')
      .option('--json', 'print one JSON object on stdout')
      .action(async (userId: string, options: { json?: boolean }) => {
        const result = await withServices(io, ({ services }) => services.users.setDisabled(userId, disabled))
        if (options.json === true) return printJson(io, result)
        say(io, `User ${userId} ${disabled ? 'disabled' : 'enabled'}.`)
      })
  }

  for (const name of ['grant', 'revoke'] as const) {
    users.command(`${name} <user_id>`)
      .description(name === 'grant' ? 'Give a user access to brands' : 'Take brands away from a user')
      .requiredOption('--brands <ids>', 'comma-separated brand ids (required)', parseIdList)
      .option('--json', 'print one JSON object on stdout')
      .action(async (userId: string, options: { brands: number[], json?: boolean }) => {
        const result = await withServices(io, ({ services }) => services.users[name](userId, options.brands))
        if (options.json === true) return printJson(io, result)
        say(io, `User ${userId} now has brands [${result.brand_ids.join(', ')}].`)
      })
  }

  users.command('delete <user_id>')
    .description('Delete a user with its key pairs and brand grants; its tokens stop working within 2 s')
    .option('--yes', 'confirm the deletion (required: it cannot be undone)')
    .option('--json', 'print one JSON object on stdout')
    .action(async (userId: string, options: { yes?: boolean, json?: boolean }) => {
      if (options.yes !== true) {
        throw new CommandError('CONFIRMATION_REQUIRED', `deleting ${userId} cannot be undone: add --yes to confirm (to keep the user but stop its access, use \`users disable\`)`, EXIT.USAGE)
      }
      const result = await withServices(io, ({ services }) => services.users.remove(userId))
      if (options.json === true) return printJson(io, result)
      say(io, `User ${userId} deleted, with its key pairs and brand grants.`)
    })
}
