import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { isCalendarDate } from '../../src/domain/dates.js'
import { renderChangeEvent } from '../../src/domain/changes.js'
import { ChangeEvent } from '../../src/http/schemas/changes.schemas.js'

// The formats the API's validator knows (src/http/app.ts), for TypeBox's own checker.
FormatRegistry.Set('date', isCalendarDate)
FormatRegistry.Set('date-time', (value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(value))

describe('renderChangeEvent', () => {
  it('writes the documented members in order, with data verbatim, valid against ChangeEvent', () => {
    const text = renderChangeEvent({
      eventNumber: 1042,
      type: 'analytics.updated',
      createdAt: '2026-11-25T10:00:00Z',
      syncId: 17,
      data: '{"brand_id":4,"accounts":[{"platform":"fb","account_id":40,"dates":[{"since":"2026-11-01","until":"2026-11-03"}]}]}',
    })
    assert.equal(text, '{"id":"evt_1042","type":"analytics.updated","created_at":"2026-11-25T10:00:00Z","sync_id":17,' +
      '"data":{"brand_id":4,"accounts":[{"platform":"fb","account_id":40,"dates":[{"since":"2026-11-01","until":"2026-11-03"}]}]}}')
    assert.equal(Value.Check(ChangeEvent, JSON.parse(text)), true)
  })

  it('writes a null sync_id for access events, and the schema refuses a data of another type', () => {
    const text = renderChangeEvent({ eventNumber: 7, type: 'access.revoked', createdAt: '2026-11-25T10:00:00Z', syncId: null, data: '{"brand_id":3}' })
    assert.equal(text, '{"id":"evt_7","type":"access.revoked","created_at":"2026-11-25T10:00:00Z","sync_id":null,"data":{"brand_id":3}}')
    assert.equal(Value.Check(ChangeEvent, JSON.parse(text)), true)
    assert.equal(Value.Check(ChangeEvent, { ...JSON.parse(text), type: 'brand.updated' }), false)
  })
})
