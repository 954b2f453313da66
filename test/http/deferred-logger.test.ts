import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { pino } from 'pino'
import type { FastifyBaseLogger } from 'fastify'
import { deferredChild } from '../../src/http/deferred-logger.js'

/**
 * A request's logger is made when the request first writes a line its level lets through
 * (src/http/deferred-logger.ts): the lines are the child's own, and lines below the level make
 * nothing.
 */
describe('the deferred request logger', () => {
  function setUp (level: string) {
    const lines: Array<Record<string, unknown>> = []
    const parent = pino({ level }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>) } }) as unknown as FastifyBaseLogger
    let made = 0
    const logger = deferredChild(parent, () => {
      made += 1
      return parent.child({ request_id: 'r1', trace_id: 't1' })
    })
    return { lines, logger, made: () => made }
  }

  it('makes no child for lines below the level, and writes nothing', () => {
    const { lines, logger, made } = setUp('warn')
    logger.info({ a: 1 }, 'incoming request')
    logger.debug('details')
    assert.equal(made(), 0)
    assert.deepEqual(lines, [])
    assert.equal(logger.level, 'warn')
  })

  it('writes the child\'s own line, bindings included, and makes the child once', () => {
    const { lines, logger, made } = setUp('warn')
    logger.error({ err: new Error('boom') }, 'request failed')
    logger.warn('again')
    assert.equal(made(), 1)
    assert.deepEqual(lines.map((line) => [line.msg, line.request_id, line.trace_id, line.level]), [['request failed', 'r1', 't1', 50], ['again', 'r1', 't1', 40]])
    assert.equal((lines[0]?.err as { message?: string } | undefined)?.message, 'boom')
  })

  it('passes child() and a changed level to the real child', () => {
    const { lines, logger } = setUp('info')
    logger.child({ step: 'x' }).info('from a grandchild')
    assert.deepEqual(lines.map((line) => [line.msg, line.request_id, line.step]), [['from a grandchild', 'r1', 'x']])
    logger.level = 'error'
    logger.warn('hidden')
    assert.equal(lines.length, 1)
  })
})
