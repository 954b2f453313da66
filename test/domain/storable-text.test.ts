import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { storableText, storableTextOf } from '../../src/domain/storable-text.js'

describe('storableText', () => {
  it('turns NUL and lone surrogates into U+FFFD and keeps everything else', () => {
    assert.equal(storableText('a\u0000b'), 'a\uFFFDb')
    assert.equal(storableText('x\uD800y'), 'x\uFFFDy')
    assert.equal(storableText('x\uDC00'), 'x\uFFFD')
    assert.equal(storableText('\uDC00\uD800'), '\uFFFD\uFFFD')
    // A pair is one character (an emoji), kept whole; so are tabs, newlines and other controls.
    assert.equal(storableText('ok 😀\t\n\u0001é'), 'ok 😀\t\n\u0001é')
  })

  it('decodes bytes, each invalid UTF-8 sequence and NUL becoming U+FFFD', () => {
    assert.equal(storableTextOf(Buffer.from([0x61, 0x00, 0xff, 0xc3, 0xa9, 0xe2, 0x82])), 'a\uFFFD\uFFFDé\uFFFD')
    assert.equal(storableTextOf(new Uint8Array([0xed, 0xa0, 0x80])), '\uFFFD\uFFFD\uFFFD')
  })
})
