import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { partnerShareOf } from '../../src/services/webhooks/delivery-worker.js'
import { createNameLookups, LOOKUP_LIMITS, LookupsBusy, type Resolver } from '../../src/services/webhooks/name-lookups.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { sleep, waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { QUIET, collectingLog, createWebhook, deliveryLog, partnerWithToken, record } from './webhook-fixtures.js'

/**
 * What one partner's endpoints and names can do to another partner's deliveries, on both stores,
 * proven by the order of events rather than by timing them: ten endpoints of one partner that the
 * test holds unanswered, fed many events, take exactly their partner's share of the attempt slots
 * and no more, so a bystander's deliveries all succeed while every one of those requests is still
 * held; names that never resolve (until the test lets them fail) hold only their partner's few
 * lookups, so a bystander registers (201, not 422 or 429) and delivers meanwhile, never postponed
 * for want of a lookup slot. And the bounded lookups themselves.
 */

const CONCURRENCY = 32
const PER_ENDPOINT = 4
const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '10m', WEBHOOK_CONCURRENCY: String(CONCURRENCY), WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(PER_ENDPOINT) }
/**
 * Far longer than any wait of these tests: what the attacker holds stays held until the test lets
 * go, so a bystander served meanwhile was not waiting for it to end.
 */
const HELD_MS = 120_000
/** A generous bound for what must happen at all (a busy machine), not a measure of speed. */
const BOUND_MS = 30_000
const renamed = (brandId: number, name: string) => ({ type: 'brand.updated' as const, data: { brand_id: brandId, brand_name: name, change: 'renamed' as const } })

/**
 * Names under attack.test answer at once while `attackNames` is 'answer'; while 'hang' they never
 * answer (until given up on); once the test fails them (`failSlowLookups`: 'fail') the held ones and
 * any later ones fail at once. The rest are 127.0.0.1.
 */
let attackNames: 'answer' | 'hang' | 'fail' = 'answer'
const slowLookups = new Set<(error: Error) => void>()
const testResolver: Resolver = async (hostname, signal) => {
  if (hostname.endsWith('.attack.test') && attackNames === 'fail') throw new Error('the name server gave up')
  if (hostname.endsWith('.attack.test') && attackNames === 'hang') {
    return await new Promise((_resolve, reject) => {
      const fail = (error: Error): void => { slowLookups.delete(fail); reject(error) }
      slowLookups.add(fail)
      signal?.addEventListener('abort', () => fail(new Error('cancelled')), { once: true })
    })
  }
  return [{ address: '127.0.0.1', family: 4 }]
}
const failSlowLookups = (): void => {
  attackNames = 'fail'
  for (const fail of [...slowLookups]) fail(new Error('the name server gave up'))
}

for (const dialect of DIALECTS) {
  describe(`one partner beside another (${dialect})`, () => {
    let api: PartnerApi
    let receiver: Receiver

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }, { brand_id: 2 }]) },
        brandIds: [1, 2],
        env: ENV,
        // Neither an attempt nor a lookup ends by itself while a test holds it.
        webhooks: { resolver: testResolver, timeoutMs: HELD_MS, lookupLimits: { ...LOOKUP_LIMITS, timeoutMs: HELD_MS } },
      })
    })
    after(async () => { await api.close() })
    beforeEach(async () => {
      receiver = await startReceiver()
      attackNames = 'answer'
    })
    afterEach(async () => {
      failSlowLookups()
      await api.app.services.webhooks.worker.stop(200)
      await receiver.close()
    })

    /** Records `count` bystander events and waits (generously) until each has succeeded, at its first attempt. */
    const bystanderDelivers = async (bystander: { auth: { authorization: string } }, webhookId: string, count: number): Promise<void> => {
      await record(api.test.store, Array.from({ length: count }, (_, index) => renamed(2, `Bystander ${index}`)))
      await waitFor('the bystander\'s deliveries, each succeeded', async () => {
        const log = await deliveryLog(api.app, bystander.auth, webhookId)
        return log.data.length === count && log.data.every((delivery) => delivery.status === 'succeeded')
      }, BOUND_MS)
      const log = await deliveryLog(api.app, bystander.auth, webhookId)
      assert.deepEqual(log.data.map((delivery) => delivery.attempt_count), Array.from({ length: count }, () => 1))
      assert.deepEqual(receiver.at('/bystander').map((delivery) => JSON.parse(delivery.body).data.brand_name).sort(), Array.from({ length: count }, (_, index) => `Bystander ${index}`).sort())
    }

    it('ten held endpoints of one partner take its share of the slots, no more: a bystander is served while they are all still held', async (t) => {
      const share = partnerShareOf(CONCURRENCY, PER_ENDPOINT)
      const attacker = await partnerWithToken(api.app, api.test.store, [1])
      for (let index = 0; index < 10; index++) {
        receiver.on(`/slow-${index}`, { hold: true })
        await createWebhook(api.app, attacker.auth, { url: `${receiver.origin}/slow-${index}`, events: ['brand.updated'] })
      }
      const bystander = await partnerWithToken(api.app, api.test.store, [2])
      const bystanderHook = await createWebhook(api.app, bystander.auth, { url: `${receiver.origin}/bystander`, events: ['brand.updated'] })
      // 100 deliveries to held endpoints: 10 × 4 per endpoint would be more than all 32 slots.
      await record(api.test.store, Array.from({ length: 10 }, (_, index) => renamed(1, `Attack ${index}`)))
      api.app.services.webhooks.worker.start(QUIET)
      await waitFor('the attacker holding its whole share of the slots', () => receiver.open('/slow-') === share, BOUND_MS)

      const started = Date.now()
      await bystanderDelivers(bystander, bystanderHook.id, 10)
      t.diagnostic(`${dialect}: the bystander's 10 deliveries succeeded ${Date.now() - started} ms after they were recorded (information, not asserted)`)
      // Served while every held request was still open and none had ended: it waited for none of them.
      assert.equal(receiver.open('/slow-'), share, 'the attacker\'s requests are all still held')
      assert.equal(receiver.received.filter((delivery) => delivery.path.startsWith('/slow-')).length, share, 'the attacker got its share and not one request more')
      assert.equal(receiver.cut('/slow-'), 0)
      assert.equal(api.app.services.webhooks.worker.inFlight(), share)

      // Let go: the attacker's deliveries proceed, still at most its share at once.
      receiver.release('/slow-')
      await waitFor('more of the attacker\'s deliveries answered', () => receiver.received.filter((delivery) => delivery.path.startsWith('/slow-')).length > share, BOUND_MS)
    })

    it('names that never resolve hold only their partner\'s lookups: a bystander registers and delivers meanwhile, never postponed', async () => {
      const attacker = await partnerWithToken(api.app, api.test.store, [1])
      const port = new URL(receiver.origin).port
      for (let index = 0; index < 10; index++) {
        await createWebhook(api.app, attacker.auth, { url: `http://a${index}.attack.test:${port}/attack`, events: ['brand.updated'] })
      }
      // From now on the attacker's names never answer: its deliveries and registrations wait on lookups.
      attackNames = 'hang'
      const log = collectingLog()
      api.app.services.webhooks.worker.start(log)
      await record(api.test.store, Array.from({ length: 10 }, (_, index) => renamed(1, `Attack ${index}`)))
      // Ten new registrations on attack names every 100 ms, none waiting for the last: its lookups
      // and its queue of waiting ones fill, and it is told to wait (429) at once.
      const attack = { on: true }
      const answers: number[] = []
      const flood = (async () => {
        const sent: Array<Promise<void>> = []
        for (let round = 0; attack.on; round++) {
          for (let index = 0; index < 10; index++) {
            sent.push(api.app.inject({ method: 'POST', url: '/webhooks', headers: attacker.auth, payload: { url: `https://x${round}-${index}.attack.test/` } })
              .then((response) => { answers.push(response.statusCode) }))
          }
          await sleep(100)
        }
        await Promise.all(sent)
      })()
      let bystanderWebhook = ''
      try {
        // The attacker's whole share of lookups is taken, by names that will not answer while the bystander is served.
        await waitFor('the attacker holding its whole share of lookups, and told to wait for more', () => slowLookups.size === LOOKUP_LIMITS.perPartner && answers.includes(429), BOUND_MS)
        const bystander = await partnerWithToken(api.app, api.test.store, [2])
        const registered = await api.app.inject({ method: 'POST', url: '/webhooks', headers: bystander.auth, payload: { url: `http://bystander.test:${port}/bystander`, events: ['brand.updated'] } })
        assert.equal(registered.statusCode, 201, registered.body)
        bystanderWebhook = (registered.json() as { id: string }).id
        await bystanderDelivers(bystander, bystanderWebhook, 5)
        assert.equal(slowLookups.size, LOOKUP_LIMITS.perPartner, 'the attacker\'s lookups are all still unanswered')
      } finally {
        attack.on = false
        failSlowLookups()
      }
      await flood
      // The bystander never had to wait for a lookup slot; only the attacker's deliveries did.
      const postponed = log.lines.filter((line) => line.message.startsWith('webhook delivery postponed'))
      assert.deepEqual(postponed.filter((line) => (line.fields as { webhook_id?: string }).webhook_id === bystanderWebhook), [])
      // The attacker's own registrations: refused as unresolvable (its lookups fail) or told
      // to wait (its share of lookups is taken) — never anything else.
      assert.deepEqual([...new Set(answers)].filter((status) => status !== 422 && status !== 429), [])
      assert.ok(answers.includes(429), answers.join(' '))
    })
  })
}

describe('bounded host name lookups', () => {
  const limits = { perPartner: 2, total: 3, waitingPerPartner: 2, waitingTotal: 3, waitMs: 300, timeoutMs: 400 }
  const hanging = (): { resolver: Resolver, cancelled: () => number } => {
    let cancelled = 0
    const resolver: Resolver = async (hostname, signal) => {
      if (!hostname.startsWith('hang')) return [{ address: '93.184.216.34', family: 4 }]
      return await new Promise((_resolve, reject) => signal?.addEventListener('abort', () => { cancelled++; reject(new Error('cancelled')) }, { once: true }))
    }
    return { resolver, cancelled: () => cancelled }
  }

  it('gives a hanging lookup up at its time limit, telling the resolver, and frees its slot', async () => {
    const { resolver, cancelled } = hanging()
    const lookups = createNameLookups(resolver, limits)
    await assert.rejects(lookups.resolve('a', 'hang.example'), /no answer within 400 ms/)
    assert.equal(cancelled(), 1)
    assert.deepEqual(lookups.stats(), { running: 0, waiting: 0 })
  })

  it('a partner\'s hanging lookups hold its own slots only; beyond its queue it is told busy at once', async () => {
    const { resolver } = hanging()
    const lookups = createNameLookups(resolver, limits)
    const held = [lookups.resolve('a', 'hang1'), lookups.resolve('a', 'hang2'), lookups.resolve('a', 'hang3'), lookups.resolve('a', 'hang4')]
    for (const lookup of held) lookup.catch(() => {})
    assert.deepEqual(lookups.stats(), { running: 2, waiting: 2 })
    // Another partner still has a slot.
    assert.deepEqual(await lookups.resolve('b', 'fine.example'), [{ address: '93.184.216.34', family: 4 }])
    // No room left in partner a's queue.
    await assert.rejects(lookups.resolve('a', 'hang5'), LookupsBusy)
    // Its waiting ones find no slot within 300 ms: busy, which is not the host's failure.
    const outcomes = await Promise.allSettled(held)
    assert.deepEqual(outcomes.map((outcome) => outcome.status === 'rejected' && (outcome.reason instanceof LookupsBusy ? 'busy' : 'timeout')), ['timeout', 'timeout', 'busy', 'busy'])
    assert.deepEqual(lookups.stats(), { running: 0, waiting: 0 })
  })
})
