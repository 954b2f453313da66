import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { sleep, waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { insertEnabledEndpoint } from '../helpers/webhook-endpoints.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { QUIET, deliveryLog, partnerWithToken, record } from './webhook-fixtures.js'

/**
 * A name server that never answers one partner's names, on both stores, through the service's
 * own resolver (c-ares, pointed at a fake name server by WEBHOOK_DNS_SERVERS): the attacker keeps
 * ten webhooks on `aN.slow.test` fed with events and registers new `*.slow.test` URLs without
 * pause; meanwhile a bystander registers a webhook on a name that resolves (201, not 422 or 429)
 * and its deliveries arrive within 2 s, each at its first attempt; the lookups the attacker could
 * not get a slot for are counted against no one (an attacker's webhook has at most one attempt per
 * lookup its name server saw). With the bounds of before (2 lookups in all, an unbounded queue)
 * the bystander's registration waits behind the attacker's lookups and is refused.
 */

const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '10m' }
const ATTACK_ENDPOINTS = 10
const renamed = (brandId: number, name: string) => ({ type: 'brand.updated' as const, data: { brand_id: brandId, brand_name: name, change: 'renamed' as const } })

for (const dialect of DIALECTS) {
  describe(`a name server that never answers one partner's names (${dialect})`, () => {
    let dns: FakeDns
    let api: PartnerApi
    let receiver: Receiver

    before(async () => {
      dns = await startFakeDns(new Map([['bystander.test', '127.0.0.1']]), ['slow.test'])
      receiver = await startReceiver()
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }, { brand_id: 2 }]) },
        brandIds: [1, 2],
        env: { ...ENV, WEBHOOK_DNS_SERVERS: dns.server },
        webhooks: { timeoutMs: 4000 },
      })
    })
    after(async () => {
      await api.app.services.webhooks.worker.stop(200)
      await api.close()
      await receiver.close()
      await dns.close()
    })

    it('leaves a bystander registering (201) and delivering within 2 s, and blames no one for the saturation', async () => {
      const port = new URL(receiver.origin).port
      const attacker = await partnerWithToken(api.app, api.test.store, [1])
      // Written straight to the store: no name under slow.test ever resolves, so none could be registered.
      const attackIds: string[] = []
      for (let index = 0; index < ATTACK_ENDPOINTS; index++) {
        attackIds.push(await insertEnabledEndpoint(api.test.store.db, { userId: attacker.userId, url: `http://a${index}.slow.test:${port}/attack`, events: ['brand.updated'] }))
      }
      api.app.services.webhooks.worker.start(QUIET)

      // Every 200 ms: an event for each of the ten webhooks, and five new registrations on slow names.
      const attack = { on: true }
      const flood = (async () => {
        const answers: number[] = []
        for (let round = 0; attack.on; round++) {
          await record(api.test.store, [renamed(1, `Attack ${round}`)])
          const batch = await Promise.all(Array.from({ length: 5 }, async (_, index) => (await api.app.inject({
            method: 'POST', url: '/webhooks', headers: attacker.auth, payload: { url: `https://x${round}-${index}.slow.test/` },
          })).statusCode))
          answers.push(...batch)
          await sleep(200)
        }
        return answers
      })()

      let bystanderWebhook = ''
      let bystanderAuth = { authorization: '' }
      const sentAt: number[] = []
      try {
        // Two of the attacker's lookups asked (an A and an AAAA query each), then a second of attack.
        await waitFor('the attacker\'s lookups under way', () => dns.unanswered() >= 4, 10_000)
        await sleep(1000)
        const bystander = await partnerWithToken(api.app, api.test.store, [2])
        bystanderAuth = bystander.auth
        const registered = await api.app.inject({ method: 'POST', url: '/webhooks', headers: bystander.auth, payload: { url: `http://bystander.test:${port}/bystander`, events: ['brand.updated'] } })
        assert.equal(registered.statusCode, 201, registered.body)
        bystanderWebhook = (registered.json() as { id: string }).id
        for (let index = 0; index < 5; index++) {
          sentAt.push(Date.now())
          await record(api.test.store, [renamed(2, `Bystander ${index}`)])
          await sleep(200)
        }
        await waitFor('the bystander\'s deliveries', () => receiver.at('/bystander').length >= 5, 15_000)
      } finally {
        attack.on = false
      }
      const answers = await flood

      const arrivals = new Map(receiver.at('/bystander').map((delivery) => [JSON.parse(delivery.body).data.brand_name as string, delivery.receivedAt]))
      const latencies = sentAt.map((at, index) => (arrivals.get(`Bystander ${index}`) ?? Infinity) - at)
      assert.ok(Math.max(...latencies) <= 2000, `bystander latencies (ms): ${latencies.join(' ')}`)
      assert.equal(dns.queries('bystander.test') > 0, true, 'the bystander\'s name was looked up through the fake name server')

      // The bystander's deliveries each succeeded at their first attempt: nothing counted toward disabling it.
      const bystanderLog = await deliveryLog(api.app, bystanderAuth, bystanderWebhook)
      assert.deepEqual(bystanderLog.data.map((delivery) => [delivery.status, delivery.attempt_count]), Array.from({ length: 5 }, () => ['succeeded', 1]))
      const endpoint = await api.test.store.db.selectFrom('webhook_endpoints').select('failing_since').where('endpoint_id', '=', bystanderWebhook).executeTakeFirstOrThrow()
      assert.equal(endpoint.failing_since, null)

      // The attacker's own registrations: unresolvable (its lookups time out) or told to wait (its share is taken).
      assert.deepEqual([...new Set(answers)].filter((status) => status !== 422 && status !== 429), [], answers.join(' '))
      assert.ok(answers.includes(429), answers.join(' '))

      // An attempt of the attacker's webhooks is counted only for a lookup that really ran (each
      // sends an A and an AAAA query): deliveries that found no lookup slot were postponed, uncounted.
      for (const [index, endpointId] of attackIds.entries()) {
        const attempts = await api.test.store.db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('count'))
          .where('endpoint_id', '=', endpointId).executeTakeFirstOrThrow()
        assert.ok(Number(attempts.count) * 2 <= dns.queries(`a${index}.slow.test`), `a${index}: ${attempts.count} attempts, ${dns.queries(`a${index}.slow.test`)} queries`)
      }
    })
  })
}
