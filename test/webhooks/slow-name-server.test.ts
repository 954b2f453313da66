import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { sleep, waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { insertEnabledEndpoint } from '../helpers/webhook-endpoints.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { collectingLog, deliveryLog, partnerWithToken, record } from './webhook-fixtures.js'

/**
 * A name server that never answers one partner's names, on both stores, through the service's
 * own resolver (c-ares, pointed at a fake name server by WEBHOOK_DNS_SERVERS): the attacker keeps
 * ten webhooks on `aN.slow.test` fed with events and registers new `*.slow.test` URLs without
 * pause; once the attacker is told to wait (429: its lookups and their queue are full), a bystander
 * registers a webhook on a name that resolves (201, not 422 or 429) and its deliveries all succeed,
 * each at its first attempt and none postponed for want of a lookup slot, while the attacker is
 * still being told to wait — shown by that order, not by timing it; the lookups the attacker could
 * not get a slot for are counted against no one (an attacker's webhook has at most one attempt per
 * lookup its name server saw). With the bounds of before (2 lookups in all, an unbounded queue)
 * the bystander's registration waits behind the attacker's lookups and is refused.
 */

const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '10m' }
const ATTACK_ENDPOINTS = 10
/** A generous bound for what must happen at all (a busy machine), not a measure of speed. */
const BOUND_MS = 30_000
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

    it('leaves a bystander registering (201) and delivering, never postponed, while the attacker is told to wait, and blames no one for the saturation', async (t) => {
      const port = new URL(receiver.origin).port
      const attacker = await partnerWithToken(api.app, api.test.store, [1])
      // Written straight to the store: no name under slow.test ever resolves, so none could be registered.
      const attackIds: string[] = []
      for (let index = 0; index < ATTACK_ENDPOINTS; index++) {
        attackIds.push(await insertEnabledEndpoint(api.test.store.db, { userId: attacker.userId, url: `http://a${index}.slow.test:${port}/attack`, events: ['brand.updated'] }))
      }
      const log = collectingLog()
      api.app.services.webhooks.worker.start(log)

      // Every 200 ms: an event for each of the ten webhooks, and five new registrations on slow names,
      // none waiting for the last, so its lookups and their queue fill and it is told to wait (429).
      const attack = { on: true }
      const answers: number[] = []
      const flood = (async () => {
        const sent: Array<Promise<void>> = []
        for (let round = 0; attack.on; round++) {
          await record(api.test.store, [renamed(1, `Attack ${round}`)])
          for (let index = 0; index < 5; index++) {
            sent.push(api.app.inject({ method: 'POST', url: '/webhooks', headers: attacker.auth, payload: { url: `https://x${round}-${index}.slow.test/` } })
              .then((response) => { answers.push(response.statusCode) }))
          }
          await sleep(200)
        }
        await Promise.all(sent)
      })()

      let bystanderWebhook = ''
      let bystanderAuth = { authorization: '' }
      try {
        // Lookups under way at the name server (an A and an AAAA query each), and the attacker told to wait.
        await waitFor('the attacker\'s lookups under way, and the attacker told to wait', () => dns.unanswered() >= 4 && answers.includes(429), BOUND_MS)
        const bystander = await partnerWithToken(api.app, api.test.store, [2])
        bystanderAuth = bystander.auth
        const registered = await api.app.inject({ method: 'POST', url: '/webhooks', headers: bystander.auth, payload: { url: `http://bystander.test:${port}/bystander`, events: ['brand.updated'] } })
        assert.equal(registered.statusCode, 201, registered.body)
        bystanderWebhook = (registered.json() as { id: string }).id
        const recorded = Date.now()
        await record(api.test.store, Array.from({ length: 5 }, (_, index) => renamed(2, `Bystander ${index}`)))
        await waitFor('the bystander\'s deliveries, each succeeded', async () => {
          const page = await deliveryLog(api.app, bystanderAuth, bystanderWebhook)
          return page.data.length === 5 && page.data.every((delivery) => delivery.status === 'succeeded')
        }, BOUND_MS)
        t.diagnostic(`${dialect}: the bystander's 5 deliveries succeeded ${Date.now() - recorded} ms after they were recorded (information, not asserted)`)
        // The attack still saturated its share after the bystander was done: a later 429.
        const done = answers.length
        await waitFor('the attacker still told to wait after the bystander was served', () => answers.slice(done).includes(429), BOUND_MS)
      } finally {
        attack.on = false
      }
      await flood

      assert.deepEqual(receiver.at('/bystander').map((delivery) => JSON.parse(delivery.body).data.brand_name).sort(), Array.from({ length: 5 }, (_, index) => `Bystander ${index}`))
      // None of the bystander's deliveries had to wait for a lookup slot.
      assert.deepEqual(log.lines.filter((line) => line.message.startsWith('webhook delivery postponed') && (line.fields as { webhook_id?: string }).webhook_id === bystanderWebhook), [])
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
