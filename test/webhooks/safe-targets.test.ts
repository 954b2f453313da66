import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { systemResolver, type Resolver } from '../../src/services/webhooks/target-policy.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { sleep, waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { QUIET, createWebhook, deliveryLog, record } from './webhook-fixtures.js'

/**
 * Safe targets without WEBHOOK_ALLOW_PRIVATE, on both stores: only https://, no credentials, and a
 * host whose every address is public — refused with a 422 naming the rule, whether the URL holds
 * an address (in any spelling) or a name that resolves to a private one (`localhost` through the
 * system's resolver; names of a test resolver injected into the service). The judgement is made
 * again at each attempt: a name that resolved to a public address when registered and to
 * 127.0.0.1 when the attempt comes (DNS rebinding) is refused, and nothing connects.
 */

const PUBLIC = '93.184.216.34'
let rebound = false
const NAMES: Record<string, string[]> = {
  'public.test': [PUBLIC],
  'loopback.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': [PUBLIC, '10.0.0.5'],
  'v6-private.test': ['fd00::1'],
}
const testResolver: Resolver = async (hostname) => {
  if (hostname === 'rebind.test') return [{ address: rebound ? '127.0.0.1' : PUBLIC, family: 4 }]
  if (hostname === 'unresolvable.test') throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })
  const addresses = NAMES[hostname]
  if (addresses !== undefined) return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  return await systemResolver(hostname)
}

const REFUSED: Array<[string, string]> = [
  ['http://public.test/hook', 'https_required'],
  ['https://127.0.0.1/hook', 'private_address'],
  ['https://localhost/hook', 'private_address'],
  ['https://loopback.test/hook', 'private_address'],
  ['https://metadata.test/latest/meta-data/', 'private_address'],
  ['https://mixed.test/hook', 'private_address'],
  ['https://v6-private.test/hook', 'private_address'],
  ['https://10.1.2.3/hook', 'private_address'],
  ['https://172.16.0.1/hook', 'private_address'],
  ['https://192.168.1.1/hook', 'private_address'],
  ['https://169.254.169.254/latest/meta-data/', 'private_address'],
  ['https://100.64.0.1/hook', 'private_address'],
  ['https://0.0.0.0/hook', 'private_address'],
  ['https://[::1]/hook', 'private_address'],
  ['https://[fc00::1]/hook', 'private_address'],
  ['https://[fe80::1]/hook', 'private_address'],
  ['https://[::ffff:127.0.0.1]/hook', 'private_address'],
  // IPv4-compatible literals (URL parsing spells them ::7f00:1 …), judged by their IPv4 address,
  // and IPv6 outside 2000::/3, which ipaddr.js leaves in its catch-all `unicast`.
  ['https://[::127.0.0.1]/hook', 'private_address'],
  ['https://[::a9fe:a9fe]/hook', 'private_address'],
  ['https://[::10.0.0.1]/hook', 'private_address'],
  ['https://[::8.8.8.8]/hook', 'private_address'],
  ['https://[4000::1]/hook', 'private_address'],
  // Other spellings of 127.0.0.1, which URL parsing normalises before the judgement.
  ['https://0x7f.1/hook', 'private_address'],
  ['https://2130706433/hook', 'private_address'],
  ['https://127.1/hook', 'private_address'],
  ['https://user:password@public.test/hook', 'credentials_not_allowed'],
  ['https://unresolvable.test/hook', 'unresolvable'],
  ['ftp://public.test/hook', 'invalid_url'],
  ['public.test/hook', 'invalid_url'],
]

for (const dialect of DIALECTS) {
  describe(`safe webhook targets (${dialect})`, () => {
    let api: PartnerApi
    let receiver: Receiver

    before(async () => {
      receiver = await startReceiver()
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }]) },
        brandIds: [1],
        env: { WEBHOOK_RETRY_SCHEDULE: '10m' },
        webhooks: { resolver: testResolver },
      })
    })
    after(async () => {
      await api.close()
      await receiver.close()
    })

    it('refuses private, loopback, metadata and non-https targets with a 422 naming the rule', async () => {
      for (const [url, rule] of REFUSED) {
        const response = await api.app.inject({ method: 'POST', url: '/webhooks', headers: api.auth, payload: { url } })
        assert.equal(response.statusCode, 422, `${url}: ${response.body}`)
        const [issue] = response.json().detail
        assert.deepEqual([issue.loc, issue.type, issue.ctx], [['body', 'url'], `url_${rule}`, { rule }], url)
        assert.ok(issue.msg.startsWith(`URL refused (${rule}): `), issue.msg)
      }
      const localhost = await api.app.inject({ method: 'POST', url: '/webhooks', headers: api.auth, payload: { url: 'https://localhost/hook' } })
      assert.match(localhost.json().detail[0].msg, /localhost resolves to (127\.0\.0\.1|::1), loopback/)
      const compatible = await api.app.inject({ method: 'POST', url: '/webhooks', headers: api.auth, payload: { url: 'https://[::127.0.0.1]/hook' } })
      assert.equal(compatible.json().detail[0].msg, 'URL refused (private_address): must resolve to public addresses only (::7f00:1 is loopback)')
      // A public IPv6 address passes.
      const v6 = await api.app.inject({ method: 'POST', url: '/webhooks', headers: api.auth, payload: { url: 'https://[2606:4700:4700::1111]/hook' } })
      assert.equal(v6.statusCode, 201, v6.body)
      await api.app.inject({ method: 'DELETE', url: `/webhooks/${v6.json().id as string}`, headers: api.auth })
      // The same rules on PATCH.
      const hook = await createWebhook(api.app, api.auth, { url: 'https://public.test/hook' })
      const patched = await api.app.inject({ method: 'PATCH', url: `/webhooks/${hook.id}`, headers: api.auth, payload: { url: 'https://loopback.test/hook' } })
      assert.equal(patched.json().detail[0].type, 'url_private_address')
      assert.equal((await api.app.inject({ method: 'GET', url: `/webhooks/${hook.id}`, headers: api.auth })).json().url, 'https://public.test/hook')
      await api.app.inject({ method: 'DELETE', url: `/webhooks/${hook.id}`, headers: api.auth })
    })

    it('judges the host again at every attempt: a name rebound to 127.0.0.1 is refused and nothing connects', async () => {
      const port = new URL(receiver.origin).port
      rebound = false
      const hook = await createWebhook(api.app, api.auth, { url: `https://rebind.test:${port}/rebound`, events: ['brand.updated'] })
      rebound = true
      api.app.services.webhooks.worker.start(QUIET)
      await record(api.test.store, [{ type: 'brand.updated', data: { brand_id: 1, brand_name: 'Rebound', change: 'renamed' } }])
      await waitFor('the refused attempt in the log', async () => (await deliveryLog(api.app, api.auth, hook.id)).data[0]?.attempt_count === 1, 30_000)
      const [delivery] = (await deliveryLog(api.app, api.auth, hook.id)).data
      assert.deepEqual([delivery?.status, delivery?.attempts[0]?.http_status], ['pending', null])
      assert.equal(delivery?.attempts[0]?.error, 'target refused (private_address): must resolve to public addresses only (rebind.test resolves to 127.0.0.1, loopback)')
      await sleep(300)
      assert.equal(receiver.received.length, 0, 'no request reached 127.0.0.1')
    })
  })
}
