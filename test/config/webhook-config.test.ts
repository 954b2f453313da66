import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ConfigError, loadConfig } from '../../src/config/load.js'

/** The webhook variables and CHANGES_RETENTION_DAYS: defaults, accepted spellings, one line per bad value. */
describe('webhook configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({})
    assert.deepEqual(config.webhooks, { allowPrivate: false, retrySchedule: '5s,5m,30m,2h,5h,10h,10h', concurrency: 32, concurrencyPerEndpoint: 4 })
    assert.equal(config.changes.retentionDays, 90)
  })

  it('reads WEBHOOK_ALLOW_PRIVATE as 1/true or 0/false, in any case', () => {
    for (const [value, expected] of [['1', true], ['TRUE', true], ['true', true], ['0', false], ['False', false]] as const) {
      assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: value }).webhooks.allowPrivate, expected, value)
    }
  })

  it('reads WEBHOOK_DNS_SERVERS as comma-separated addresses with optional ports, and refuses anything else', () => {
    assert.equal(loadConfig({}).webhooks.dnsServers, undefined)
    assert.deepEqual(loadConfig({ WEBHOOK_DNS_SERVERS: '192.0.2.53, 127.0.0.1:5353,2001:db8::53,[2001:db8::53]:53' }).webhooks.dnsServers,
      ['192.0.2.53', '127.0.0.1:5353', '2001:db8::53', '[2001:db8::53]:53'])
    for (const bad of ['ns.example.com', '192.0.2.53:0', '192.0.2.53:70000', '[192.0.2.53]:53', '2001:db8::53:53x', ',']) {
      assert.throws(() => loadConfig({ WEBHOOK_DNS_SERVERS: bad }), (error: unknown) => {
        assert.ok(error instanceof ConfigError)
        assert.deepEqual(error.problems, [`WEBHOOK_DNS_SERVERS must be comma-separated IP addresses, each with an optional port (192.0.2.53, 192.0.2.53:5353, [2001:db8::53]:5353) (got "${bad}")`])
        return true
      }, bad)
    }
  })

  it('refuses bad values with one line each, naming the variable', () => {
    assert.throws(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes please', WEBHOOK_RETRY_SCHEDULE: '5s,soon', CHANGES_RETENTION_DAYS: '0', WEBHOOK_CONCURRENCY: '0' }), (error: unknown) => {
      assert.ok(error instanceof ConfigError)
      assert.deepEqual(error.problems, [
        'CHANGES_RETENTION_DAYS must be an integer from 1 to 3650 (got "0")',
        'WEBHOOK_ALLOW_PRIVATE must be 1, 0, true or false (got "yes please")',
        'WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of 1 to 20 durations such as 500ms, 5s, 5m or 2h (got "5s,soon")',
        'WEBHOOK_CONCURRENCY must be an integer from 1 to 1000 (got "0")',
      ])
      return true
    })
  })
})
