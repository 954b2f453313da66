import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { freePort, waitFor } from '../helpers/processes.js'
import { QUIET, createWebhook, deliveryLog } from '../webhooks/webhook-fixtures.js'

/**
 * The two receivers of docs/webhooks.md, run exactly as printed (the Node one with the client's
 * source standing in for the installed package) as endpoints of a running service: a real
 * webhook.test delivery is accepted (204, the event printed), and a forged one refused (400).
 */

const DOC = readFileSync(fileURLToPath(new URL('../../docs/webhooks.md', import.meta.url)), 'utf8')
const CLIENT = fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url))

function block (language: string): string {
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(DOC)
  assert.ok(match?.[1] !== undefined, `no ${language} block in docs/webhooks.md`)
  return match[1]
}

const hasPython = spawnSync('python3', ['--version']).status === 0

describe('the receivers of docs/webhooks.md', () => {
  let api: PartnerApi
  let dir: string
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pa-doc-receivers-'))
    api = await openPartnerApi('sqlite', {
      seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }]) },
      brandIds: [1],
      env: { WEBHOOK_ALLOW_PRIVATE: '1' },
    })
    api.app.services.webhooks.worker.start(QUIET)
  })
  after(async () => {
    await api.close()
    rmSync(dir, { recursive: true, force: true })
  })

  async function exercise (start: (port: number, secret: string) => ChildProcessWithoutNullStreams): Promise<void> {
    const port = await freePort()
    const hook = await createWebhook(api.app, api.auth, { url: `http://127.0.0.1:${port}/hooks` })
    const child = start(port, hook.secret)
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
    try {
      await waitFor('the receiver listens', async () => (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST' })).status === 400, 20_000)
      const test = await api.app.inject({ method: 'POST', url: `/webhooks/${hook.id}/test`, headers: api.auth })
      const eventId = test.json().event_id as string
      await waitFor('the delivery succeeded', async () => (await deliveryLog(api.app, api.auth, hook.id)).data[0]?.status === 'succeeded', 5000)
      const [delivery] = (await deliveryLog(api.app, api.auth, hook.id)).data
      assert.equal(delivery?.attempts[0]?.http_status, 204)
      await waitFor('the event printed', () => output.includes(`${eventId} webhook.test`), 2000)
      // A forged delivery: right shape, wrong signature.
      const body = JSON.stringify({ id: 'evt_999999', type: 'webhook.test', created_at: '2026-11-25T10:00:00Z', sync_id: null, data: { webhook_id: hook.id } })
      const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': 'evt_999999', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` },
        body,
      })
      assert.equal(forged.status, 400)
      assert.ok(!output.includes('evt_999999'), output)
    } finally {
      child.kill('SIGTERM')
    }
  }

  it('the Node receiver (TypeScript, the client\'s verifyWebhook)', async () => {
    const file = join(dir, 'receiver.ts')
    writeFileSync(file, block('ts').replace("'@partner-analytics/client'", JSON.stringify(CLIENT)))
    await exercise((port, secret) => spawn(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, PORT: String(port), PA_WEBHOOK_SECRET: secret } }))
  })

  it('the Python receiver (standard library only)', async (t) => {
    if (!hasPython) {
      t.skip('python3 is not installed here')
      return
    }
    const file = join(dir, 'receiver.py')
    writeFileSync(file, block('python'))
    await exercise((port, secret) => spawn('python3', [file], { env: { PATH: process.env.PATH ?? '', PORT: String(port), PA_WEBHOOK_SECRET: secret } }))
  })
})
