import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createNameLookups, LookupsBusy, type Resolver } from '../../src/services/webhooks/name-lookups.js'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { sleep, waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { QUIET, createWebhook, partnerWithToken, record } from './webhook-fixtures.js'

/**
 * What one partner's endpoints and names can do to another partner's deliveries, on both stores:
 * ten endpoints that answer only after 3 s, fed many events, take at most their partner's share of
 * the attempt slots, so a bystander's deliveries still arrive within 2 s; names that never resolve
 * (a name server that does not answer) hold only their partner's few lookups, so a bystander
 * registers (201, not 422) and delivers within 2 s meanwhile. And the bounded lookups themselves.
 */

const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '10m' }
const renamed = (brandId: number, name: string) => ({ type: 'brand.updated' as const, data: { brand_id: brandId, brand_name: name, change: 'renamed' as const } })

/** Names under attack.test answer at once until `slow` is set, then never (until given up on); the rest are 127.0.0.1. */
let slow = false
const testResolver: Resolver = async (hostname, signal) => {
  if (hostname.endsWith('.attack.test') && slow) {
    return await new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('cancelled')), { once: true }))
  }
  return [{ address: '127.0.0.1', family: 4 }]
}

/** The p-th percentile (nearest rank) of the values. */
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)] ?? NaN
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
        webhooks: { resolver: testResolver, timeoutMs: 4000 },
      })
    })
    after(async () => { await api.close() })
    beforeEach(async () => {
      receiver = await startReceiver()
      slow = false
    })
    afterEach(async () => {
      await api.app.services.webhooks.worker.stop(200)
      await receiver.close()
    })

    /** Records one bystander event every 200 ms and returns each one's time from commit to arrival. */
    const bystanderLatencies = async (path: string, count: number): Promise<number[]> => {
      const recordedAt: number[] = []
      for (let index = 0; index < count; index++) {
        recordedAt.push(Date.now())
        await record(api.test.store, [renamed(2, `Bystander ${index}`)])
        await sleep(200)
      }
      await waitFor('the bystander\'s deliveries', () => receiver.at(path).length >= count, 15_000)
      const arrivals = new Map(receiver.at(path).map((delivery) => [JSON.parse(delivery.body).data.brand_name as string, delivery.receivedAt]))
      return recordedAt.map((at, index) => (arrivals.get(`Bystander ${index}`) ?? Infinity) - at)
    }

    it('ten slow endpoints of one partner leave a bystander\'s deliveries on time (p99 ≤ 2 s)', async () => {
      const attacker = await partnerWithToken(api.app, api.test.store, [1])
      for (let index = 0; index < 10; index++) {
        receiver.on(`/slow-${index}`, { statuses: [200], delayMs: 3000 })
        await createWebhook(api.app, attacker.auth, { url: `${receiver.origin}/slow-${index}`, events: ['brand.updated'] })
      }
      const bystander = await partnerWithToken(api.app, api.test.store, [2])
      await createWebhook(api.app, bystander.auth, { url: `${receiver.origin}/bystander`, events: ['brand.updated'] })
      // 100 deliveries of 3 s each to the slow endpoints: more than all the instance's slots.
      await record(api.test.store, Array.from({ length: 10 }, (_, index) => renamed(1, `Attack ${index}`)))
      api.app.services.webhooks.worker.start(QUIET)
      await waitFor('the slow endpoints under way', () => receiver.received.filter((delivery) => delivery.path.startsWith('/slow-')).length >= 20, 5000)

      const latencies = await bystanderLatencies('/bystander', 10)
      assert.ok(percentile(latencies, 99) <= 2000, `bystander latencies (ms): ${latencies.join(' ')}`)
      // The slow partner had its share under way, never all of the slots.
      assert.ok(api.app.services.webhooks.worker.inFlight() <= 32)
    })

    it('names that never resolve hold only their partner\'s lookups: a bystander registers and delivers meanwhile', async () => {
      const attacker = await partnerWithToken(api.app, api.test.store, [1])
      const port = new URL(receiver.origin).port
      for (let index = 0; index < 10; index++) {
        await createWebhook(api.app, attacker.auth, { url: `http://a${index}.attack.test:${port}/attack`, events: ['brand.updated'] })
      }
      // From now on the attacker's names never answer: its deliveries and registrations wait on lookups.
      slow = true
      api.app.services.webhooks.worker.start(QUIET)
      await record(api.test.store, Array.from({ length: 10 }, (_, index) => renamed(1, `Attack ${index}`)))
      const attack = { on: true }
      const flood = (async () => {
        const answers: number[] = []
        for (let round = 0; attack.on; round++) {
          const batch = await Promise.all(Array.from({ length: 10 }, async (_, index) => (await api.app.inject({
            method: 'POST', url: '/webhooks', headers: attacker.auth, payload: { url: `https://x${round}-${index}.attack.test/` },
          })).statusCode))
          answers.push(...batch)
          await sleep(100)
        }
        return answers
      })()
      try {
        await sleep(1000)
        const bystander = await partnerWithToken(api.app, api.test.store, [2])
        const registered = await api.app.inject({ method: 'POST', url: '/webhooks', headers: bystander.auth, payload: { url: `http://bystander.test:${port}/bystander`, events: ['brand.updated'] } })
        assert.equal(registered.statusCode, 201, registered.body)
        const latencies = await bystanderLatencies('/bystander', 5)
        assert.ok(Math.max(...latencies) <= 2000, `bystander latencies (ms): ${latencies.join(' ')}`)
      } finally {
        attack.on = false
      }
      const answers = await flood
      // The attacker's own registrations: refused as unresolvable (its lookups time out) or told
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
