import type { Command } from 'commander'
import { parseId } from '../arguments.js'
import { withServices } from '../context.js'
import { printJson, say, type CliIo } from '../io.js'

/** `brands list` and `accounts list`: what the store holds, the ids to grant and import against. */
export function registerCatalogCommands (program: Command, io: CliIo): void {
  program.command('brands').description('Brands in the database')
    .command('list')
    .description('List brands (id, name, number of accounts), by id')
    .option('--json', 'print one JSON object on stdout')
    .action(async (options: { json?: boolean }) => {
      const brands = await withServices(io, ({ services }) => services.catalog.brands())
      if (options.json === true) return printJson(io, { brands })
      if (brands.length === 0) return say(io, 'No brands.')
      for (const brand of brands) say(io, `${brand.brand_id}  ${brand.brand_name}  (${brand.accounts} account${brand.accounts === 1 ? '' : 's'})`)
    })

  program.command('accounts').description('Social-media accounts in the database')
    .command('list')
    .description('List accounts by brand, platform and id')
    .option('--brand <id>', 'only the accounts of this brand', parseId)
    .option('--json', 'print one JSON object on stdout')
    .action(async (options: { brand?: number, json?: boolean }) => {
      const accounts = await withServices(io, ({ services }) => services.catalog.accounts(options.brand))
      if (options.json === true) return printJson(io, { accounts })
      if (accounts.length === 0) return say(io, options.brand === undefined ? 'No accounts.' : `Brand ${options.brand} has no accounts.`)
      for (const account of accounts) {
        say(io, `brand ${account.brand_id}  ${account.platform}  ${account.account_id}  ${account.account_name}${account.network_id === null ? '' : `  (network id ${account.network_id})`}`)
      }
    })
}
