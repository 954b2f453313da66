import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { insertBrandsWithAccounts } from '../helpers/fixtures.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { waitFor } from '../helpers/processes.js'
import { DIALECTS } from '../helpers/stores.js'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js'
import { QUIET, createWebhook, deliveryLog, partnerWithToken, record, type CreatedWebhook, type LoggedDelivery } from './webhook-fixtures.js'

/**
 * What a partner's receiver can send back, on both stores, without touching another partner's
 * deliveries: bodies with NUL and invalid UTF-8 are stored as text both stores accept (each such
 * byte U+FFFD) and the deliveries end; an attempt whose record the store refuses is written
 * alone, without the receiver's text, and its delivery ends (failed, counted) instead of being
 * claimed again and again, while the other partner's outcomes written in the same group commit
 * stand: each of its events arrives exactly once.
 */

const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '100ms' }
const EVENTS = 10
const renamed = (index: number) => ({ type: 'brand.updated' as const, data: { brand_id: 1, brand_name: `Name ${index}`, change: 'renamed' as const } })

for (const dialect of DIALECTS) {
  describe(`hostile webhook receivers (${dialect})`, () => {
    let api: PartnerApi
    let receiver: Receiver

    before(async () => {
      api = await openPartnerApi(dialect, {
        seed: async (test) => { await insertBrandsWithAccounts(test.store.db, [{ brand_id: 1 }]) },
        brandIds: [1],
        env: ENV,
        // A lease a little longer than an attempt's reserve, so a delivery left claimed would be
        // sent again within the test's bound (30 s in service).
        webhooks: { timeoutMs: 2000, leaseMs: 5000 },
      })
    })
    after(async () => { await api.close() })
    beforeEach(async () => { receiver = await startReceiver() })
    afterEach(async () => {
      await api.app.services.webhooks.worker.stop(500)
      await receiver.close()
    })

    const everyDelivery = async (auth: { authorization: string }, hook: CreatedWebhook): Promise<LoggedDelivery[]> => (await deliveryLog(api.app, auth, hook.id, { limit: '100' })).data
    const ended = async (auth: { authorization: string }, hook: CreatedWebhook, status: string): Promise<boolean> => {
      const deliveries = await everyDelivery(auth, hook)
      return deliveries.length === EVENTS && deliveries.every((delivery) => delivery.status === status)
    }
    const receivedOnce = (path: string): void => {
      const ids = receiver.at(path).map((delivery) => String(delivery.headers['webhook-id']))
      assert.equal(ids.length, EVENTS, `${path}: ${ids.join(' ')}`)
      assert.equal(new Set(ids).size, EVENTS)
    }

    it('stores answers with NUL and invalid UTF-8 as text, and every delivery ends; a bystander\'s arrive exactly once', async () => {
      receiver.on('/nul', { statuses: [500], body: 'bad\u0000body' })
      receiver.on('/bytes', { statuses: [500], body: Buffer.from([0x62, 0xff, 0xfe, 0x00, 0xc3]) })
      receiver.on('/nul-ok', { statuses: [200], body: 'ok\u0000' })
      const hostile = await partnerWithToken(api.app, api.test.store, [1])
      const nul = await createWebhook(api.app, hostile.auth, { url: `${receiver.origin}/nul`, events: ['brand.updated'] })
      const bytes = await createWebhook(api.app, hostile.auth, { url: `${receiver.origin}/bytes`, events: ['brand.updated'] })
      const nulOk = await createWebhook(api.app, hostile.auth, { url: `${receiver.origin}/nul-ok`, events: ['brand.updated'] })
      const bystander = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/bystander`, events: ['brand.updated'] })
      api.app.services.webhooks.worker.start(QUIET)
      await record(api.test.store, Array.from({ length: EVENTS }, (_, index) => renamed(index)))

      // Two attempts each (the schedule has one retry), then failed for good.
      await waitFor('the NUL answers\' deliveries failed', async () => await ended(hostile.auth, nul, 'failed'), 10_000)
      await waitFor('the invalid UTF-8 answers\' deliveries failed', async () => await ended(hostile.auth, bytes, 'failed'), 10_000)
      await waitFor('the 200 with NUL succeeded', async () => await ended(hostile.auth, nulOk, 'succeeded'), 10_000)
      await waitFor('the bystander\'s deliveries succeeded', async () => await ended(api.auth, bystander, 'succeeded'), 10_000)
      for (const delivery of await everyDelivery(hostile.auth, nul)) {
        assert.deepEqual(delivery.attempts.map((attempt) => [attempt.http_status, attempt.error, attempt.response_body_excerpt]), [[500, 'HTTP 500', 'bad\uFFFDbody'], [500, 'HTTP 500', 'bad\uFFFDbody']])
      }
      for (const delivery of await everyDelivery(hostile.auth, bytes)) {
        assert.deepEqual(delivery.attempts.map((attempt) => attempt.response_body_excerpt), ['b\uFFFD\uFFFD\uFFFD\uFFFD', 'b\uFFFD\uFFFD\uFFFD\uFFFD'])
      }
      for (const delivery of await everyDelivery(hostile.auth, nulOk)) {
        assert.deepEqual([delivery.attempt_count, delivery.attempts[0]?.response_body_excerpt], [1, 'ok\uFFFD'])
      }
      assert.equal(receiver.at('/nul').length, 2 * EVENTS)
      receivedOnce('/nul-ok')
      receivedOnce('/bystander')
      // Counted toward disabling, as any failure.
      const failing = await api.test.store.db.selectFrom('webhook_endpoints').select('failing_since').where('endpoint_id', '=', nul.id).executeTakeFirstOrThrow()
      assert.notEqual(failing.failing_since, null)
    })

    it('a 2xx whose body trickles in is a success after one attempt, its body read no longer than the time limit', async (t) => {
      const body = 'slowly, one byte a second'
      receiver.on('/trickle', { statuses: [200], body, trickleMs: 1000 })
      const hook = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/trickle`, events: ['brand.updated'] })
      api.app.services.webhooks.worker.start(QUIET)
      await record(api.test.store, [renamed(0)])
      // Bounded generously (a busy machine); the whole body would take 25 s to trickle in.
      await waitFor('the delivery logged', async () => (await everyDelivery(api.auth, hook))[0]?.attempt_count === 1, 30_000)
      const [delivery] = await everyDelivery(api.auth, hook)
      assert.deepEqual([delivery?.status, delivery?.attempt_count, delivery?.attempts[0]?.http_status, delivery?.attempts[0]?.error], ['succeeded', 1, 200, null])
      t.diagnostic(`${dialect}: the attempt took ${delivery?.attempts[0]?.duration_ms} ms (information, not asserted; the limit is 2 s)`)
      // What came of the body before the 2 s limit cut it: a beginning of it, never all of it, and
      // the receiver saw the sender leave while it was still sending.
      const excerpt = delivery?.attempts[0]?.response_body_excerpt ?? ''
      assert.ok(body.startsWith(excerpt) && excerpt.length < body.length, `excerpt ${JSON.stringify(excerpt)}`)
      await waitFor('the trickling answer cut by the sender', () => receiver.cut('/trickle') === 1, 30_000)
      assert.equal(receiver.at('/trickle').length, 1)
      await api.app.inject({ method: 'DELETE', url: `/webhooks/${hook.id}`, headers: api.auth })
    })

    it('an attempt whose record the store refuses ends its delivery, failed and counted; the outcomes it shared a commit with stand', async () => {
      await refuseExcerpts(api, 'poison')
      try {
        receiver.on('/poison', { statuses: [500], body: 'poison' })
        const hostile = await partnerWithToken(api.app, api.test.store, [1])
        const poison = await createWebhook(api.app, hostile.auth, { url: `${receiver.origin}/poison`, events: ['brand.updated'] })
        const bystander = await createWebhook(api.app, api.auth, { url: `${receiver.origin}/bystander`, events: ['brand.updated'] })
        api.app.services.webhooks.worker.start(QUIET)
        await record(api.test.store, Array.from({ length: EVENTS }, (_, index) => renamed(index)))

        await waitFor('the refused deliveries ended', async () => await ended(hostile.auth, poison, 'failed'), 10_000)
        await waitFor('the bystander\'s deliveries succeeded', async () => await ended(api.auth, bystander, 'succeeded'), 10_000)
        for (const delivery of await everyDelivery(hostile.auth, poison)) {
          assert.deepEqual(delivery.attempts.map((attempt) => [attempt.http_status, attempt.error, attempt.response_body_excerpt]), [
            [500, 'HTTP 500; the attempt\'s details could not be stored, so the delivery is not tried again (redeliver it to send it again)', null],
          ])
        }
        receivedOnce('/poison')
        receivedOnce('/bystander')
        const failing = await api.test.store.db.selectFrom('webhook_endpoints').select('failing_since').where('endpoint_id', '=', poison.id).executeTakeFirstOrThrow()
        assert.notEqual(failing.failing_since, null)
      } finally {
        await allowExcerpts(api)
      }
    })
  })
}

/** A trigger that makes the store refuse an attempt whose excerpt contains `word` (a record the store cannot take). */
async function refuseExcerpts (api: PartnerApi, word: string): Promise<void> {
  const db = api.test.store.db
  const pattern = `%${word}%`
  if (api.test.store.dialect === 'postgres') {
    await sql`create function refuse_excerpt() returns trigger language plpgsql as $$ begin if new.response_excerpt like ${sql.lit(pattern)} then raise exception 'refused by the test'; end if; return new; end $$`.execute(db)
    await sql`create trigger refuse_excerpt before insert on webhook_attempts for each row execute function refuse_excerpt()`.execute(db)
  } else {
    await sql`create trigger refuse_excerpt before insert on webhook_attempts when new.response_excerpt like ${sql.lit(pattern)} begin select raise(abort, 'refused by the test'); end`.execute(db)
  }
}

async function allowExcerpts (api: PartnerApi): Promise<void> {
  await sql`drop trigger refuse_excerpt${api.test.store.dialect === 'postgres' ? sql` on webhook_attempts` : sql``}`.execute(api.test.store.db)
  if (api.test.store.dialect === 'postgres') await sql`drop function refuse_excerpt()`.execute(api.test.store.db)
}
