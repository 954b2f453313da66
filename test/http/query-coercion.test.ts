import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { coerceQuery } from '../../src/http/query/coerce.js'
import { platformCodes, postTypes, sortedIds } from '../../src/http/query/lists.js'
import { AnalyticsQuery } from '../../src/http/schemas/analytics.schemas.js'
import { PostsQuery } from '../../src/http/schemas/posts.schemas.js'

/** The strict conversion of query strings to their schema's types, before Ajv judges them. */
describe('coerceQuery', () => {
  it('reads id lists: spaces, leading zeros and duplicates allowed, distinct ids', () => {
    const { brand_id: ids } = coerceQuery({ brand_id: '5, 005 ,3,3' }, AnalyticsQuery)
    assert.deepEqual(ids, [5, 3])
    assert.deepEqual(sortedIds(ids as number[]), [3, 5])
  })

  it('leaves every item that is not plain digits as text, for the schema to refuse', () => {
    for (const [raw, items] of [['1,,2', [1, '', 2]], ['1,', [1, '']], ['-1', ['-1']], ['+1', ['+1']], ['1.5', ['1.5']], ['0x10', ['0x10']], ['1e3', ['1e3']], ['9007199254740993', ['9007199254740993']], ['1,' + '9'.repeat(400), [1, '9'.repeat(400)]]] as const) {
      assert.deepEqual(coerceQuery({ brand_id: raw }, AnalyticsQuery).brand_id, items, raw)
    }
  })

  it('reads an integer parameter only from decimal digits (a sign is left to the range check)', () => {
    for (const [raw, value] of [['10', 10], ['007', 7], ['-1', -1], ['0x10', '0x10'], ['0b11', '0b11'], ['1e2', '1e2'], ['1.0', '1.0'], [' 5', ' 5'], ['', ''], ['9'.repeat(400), Number.MAX_VALUE], ['-' + '9'.repeat(400), -Number.MAX_VALUE]] as const) {
      assert.deepEqual(coerceQuery({ limit: raw }, PostsQuery).limit, value, raw)
    }
  })

  it('reads the boolean words case-insensitively and nothing else', () => {
    for (const [word, value] of [['true', true], ['TRUE', true], ['1', true], ['Yes', true], ['on', true], ['false', false], ['0', false], ['no', false], ['OFF', false], ['2', '2'], ['y', 'y'], ['truee', 'truee'], ['null', 'null']] as const) {
      assert.deepEqual(coerceQuery({ split_by_platform: word }, AnalyticsQuery).split_by_platform, value, word)
    }
  })

  it('lower-cases enumerated list items and collapses duplicates; leaves other parameters alone', () => {
    const coerced = coerceQuery({ platform: 'Pinterest, FB,facebook,ig', post_type: 'Reels,reel,VIDEO', type: 'DAILY', since: '2026-01-01' }, { ...AnalyticsQuery, properties: { ...AnalyticsQuery.properties, post_type: PostsQuery.properties.post_type } })
    assert.deepEqual(coerced.platform, ['pinterest', 'fb', 'facebook', 'ig'])
    assert.deepEqual(platformCodes(coerced.platform as string[]), ['fb', 'ig', 'pi'])
    assert.deepEqual(postTypes(coerced.post_type as string[]), ['video', 'reel'])
    assert.equal(coerced.type, 'DAILY')
    assert.equal(coerced.since, '2026-01-01')
  })
})
