import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { PartnerAnalyticsClient } from '../../../packages/client/src/client.js'
import { runExport } from '../../../packages/client/src/export/command.js'
import type { AnalyticsEntry, AnalyticsQuery } from '../../../packages/client/src/types.js'
import type { TestPartner } from '../../helpers/partners.js'

/** The API's own answers for the queries the dashboard makes, and the export command's files. */

export function apiClient (baseUrl: string, partner: TestPartner): PartnerAnalyticsClient {
  return new PartnerAnalyticsClient({ baseUrl, clientKey: partner.clientKey, secretKey: partner.secretKey })
}

export async function allDailyEntries (client: PartnerAnalyticsClient, query: Omit<AnalyticsQuery, 'type' | 'cursor'>): Promise<AnalyticsEntry[]> {
  const entries: AnalyticsEntry[] = []
  for await (const entry of client.dailyEntries(query)) entries.push(entry)
  return entries
}

const sink = () => new Writable({ write: (_chunk, _encoding, done) => { done() } })

/** Runs `partner-analytics-export ARGS --out FILE` (in process, the command's own code) and returns the file. */
export async function exportFile (baseUrl: string, partner: TestPartner, args: string[]): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), 'pa-export-'))
  try {
    const out = join(directory, 'export.csv')
    let messages = ''
    const code = await runExport([...args, '--out', out], {
      env: { PA_BASE_URL: baseUrl, PA_API_CLIENT_KEY: partner.clientKey, PA_API_SECRET_KEY: partner.secretKey },
      stdout: sink(),
      stderr: Object.assign(new Writable({ write: (chunk, _encoding, done) => { messages += String(chunk); done() } }), { isTTY: false }),
    })
    if (code !== 0) throw new Error(`export ${args.join(' ')} exited ${code}: ${messages}`)
    return readFileSync(out, 'utf8')
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}
