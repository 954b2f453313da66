import type { Command } from 'commander'
import { parseIdList } from '../arguments.js'
import { withServices } from '../context.js'
import { printJson, say, type CliIo } from '../io.js'

/** `users …` and `credentials rotate`: thin wrappers over users.service. */
export function registerUserCommands (program: Command, io: CliIo): void {
  const users = program.command('users').description('Create partner users and manage their access')

  users.command('create')
    .description('Create a user, grant it brands and issue its key pair (the secret is shown only here)')
    .requiredOption('--name <name>', 'display name of the user')
    .option('--brands <ids>', 'comma-separated brand ids to grant', parseIdList, [] as number[])
    .option('--json', 'print one JSON object on stdout')
    .action(async (options: { name: string, brands: number[], json?: boolean }) => {
      const created = await withServices(io, ({ services }) => services.users.create({ name: options.name, brandIds: options.brands }))
      if (options.json === true) return printJson(io, created)
      say(io, `Created user ${created.user_id} (${created.name}) with brands [${created.brand_ids.join(', ')}]`)
      say(io, `api_client_key: ${created.api_client_key}`)
      say(io, `api_secret_key: ${created.api_secret_key}`)
      say(io, 'The secret is shown only now: hand it to the partner over a secure channel.')
    })

  users.command('list')
    .description('List users with their state, live client key and brands')
    .option('--json', 'print one JSON object on stdout')
    .action(async (options: { json?: boolean }) => {
      const list = await withServices(io, ({ services }) => services.users.list())
      if (options.json === true) return printJson(io, { users: list })
      if (list.length === 0) return say(io, 'No users.')
      for (const user of list) {
        say(io, [user.user_id, user.disabled ? 'disabled' : 'active', user.api_client_key ?? '-',
          `brands=[${user.brand_ids.join(',')}]`, user.name].join('  '))
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
      .requiredOption('--brands <ids>', 'comma-separated brand ids', parseIdList)
      .option('--json', 'print one JSON object on stdout')
      .action(async (userId: string, options: { brands: number[], json?: boolean }) => {
        const result = await withServices(io, ({ services }) => services.users[name](userId, options.brands))
        if (options.json === true) return printJson(io, result)
        say(io, `User ${userId} now has brands [${result.brand_ids.join(', ')}].`)
      })
  }

  program.command('credentials').description('Manage partner key pairs')
    .command('rotate <user_id>')
    .description('Issue a new key pair and revoke the old one (tokens issued with it stop within 5 s)')
    .option('--json', 'print one JSON object on stdout')
    .action(async (userId: string, options: { json?: boolean }) => {
      const issued = await withServices(io, ({ services }) => services.users.rotate(userId))
      if (options.json === true) return printJson(io, issued)
      say(io, `New key pair for ${issued.user_id}; the old one no longer works.`)
      say(io, `api_client_key: ${issued.api_client_key}`)
      say(io, `api_secret_key: ${issued.api_secret_key}`)
    })
}
