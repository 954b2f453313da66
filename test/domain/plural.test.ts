import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { countOf } from '../../src/domain/plural.js'
import { issuesFromAjv } from '../../src/http/validation-issues.js'

/** Counts in messages say "1 row", never "1 rows" (issue 19.6). */
describe('counts in messages', () => {
  it('uses the singular for exactly one, the plural otherwise', () => {
    assert.deepEqual([0, 1, 2].map((n) => countOf(n, 'day')), ['0 days', '1 day', '2 days'])
    assert.equal(countOf(1, 'daily row'), '1 daily row')
    assert.equal(countOf(3, 'entry', 'entries'), '3 entries')
  })

  it('says "1 character" in a 422 about a string bound of one', () => {
    const issue = (keyword: string) => issuesFromAjv('querystring', [{ keyword, instancePath: '/cursor', params: { limit: 1 } }])[0]?.msg
    assert.deepEqual([issue('minLength'), issue('maxLength')], ['String should have at least 1 character', 'String should have at most 1 character'])
  })
})
