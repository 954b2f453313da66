import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { demoSource } from '../../src/services/demo/source.js'
import { importSources } from '../../src/services/import/import.service.js'
import { buildTestApp } from '../helpers/app.js'
import { createPartner, loginToken, type TestPartner } from '../helpers/partners.js'
import { createTestStore, DIALECTS, type TestStore } from '../helpers/stores.js'

/**
 * Every example of docs/api-reference.md and docs/client.md is sent to a running server on the
 * data the reference names, and its body is held to the real answer: the same status, and at every
 * level the same members in the same order (issue 19.7: client.md gave the agg members in another
 * order than the service writes them). Values may differ: they are data, times, ids and tokens.
 *
 * The examples are found by the convention docs/api-reference.md states ("Examples"), never by a
 * list kept here: a fenced `http` block holding the request (request line, header lines, a blank
 * line and a JSON body for a POST, and a last line `→ STATUS` when the answer is not 200), then a
 * fenced `json` block with the answer's body. `Authorization: Bearer <access_token>` stands for
 * the partner's token, "pak_…" and "pas_…" for its key pair. A `json` block that is not the
 * answer of a request fails the test: a body shown without its request cannot be checked.
 */

const REPO = resolve(fileURLToPath(new URL('../../', import.meta.url)))
const DOCUMENTS = ['docs/api-reference.md', 'docs/client.md', 'docs/reports.md']
/** The data the reference names: `partner-analytics demo --brands 3 --days 60 --seed 42 --until 2026-10-31`. */
const DEMO = { brands: 3, days: 60, seed: 42, until: '2026-10-31' }
/** The partner of the examples: granted brands 1 and 2. */
const PARTNER = { name: 'Acme Analytics', brandIds: [1, 2] }

interface Block { info: string, lines: string[], line: number, end: number }
interface Example { where: string, method: string, path: string, headers: Record<string, string>, body: string | undefined, status: number, answer: unknown }

/** The fenced blocks of a markdown text, with the line each opens on and the line it closes on. */
function fencedBlocks (markdown: string): Block[] {
  const blocks: Block[] = []
  let open: Block | undefined
  markdown.split('\n').forEach((text, index) => {
    const fence = /^\s*```(.*)$/.exec(text)
    if (fence === null) { open?.lines.push(text); return }
    if (open === undefined) open = { info: (fence[1] ?? '').trim(), lines: [], line: index + 1, end: index + 1 }
    else { open.end = index + 1; blocks.push(open); open = undefined }
  })
  return blocks
}

/** The examples of one document, or the places where the convention is broken. */
function examplesOf (document: string, markdown = readFileSync(join(REPO, document), 'utf8')): { examples: Example[], problems: string[] } {
  const lines = markdown.split('\n')
  const blocks = fencedBlocks(markdown)
  const examples: Example[] = []
  const problems: string[] = []
  blocks.forEach((block, index) => {
    const where = `${document}:${block.line}`
    const previous = blocks[index - 1]
    const next = blocks[index + 1]
    const adjacent = (first: Block, second: Block) => lines.slice(first.end, second.line - 1).every((text) => text.trim() === '')
    if (block.info === 'json' && (previous?.info !== 'http' || !adjacent(previous, block))) problems.push(`${where}: a json block that does not answer an http request block right before it`)
    if (block.info !== 'http') return
    if (next?.info !== 'json' || !adjacent(block, next)) { problems.push(`${where}: an http request without its json answer right after it`); return }
    try {
      examples.push({ where, ...parseRequest(block.lines), answer: JSON.parse(next.lines.join('\n')) })
    } catch (error) {
      problems.push(`${where}: ${(error as Error).message}`)
    }
  })
  return { examples, problems }
}

function parseRequest (lines: string[]): Omit<Example, 'where' | 'answer'> {
  const [requestLine = '', ...rest] = lines
  const request = /^(GET|POST|HEAD|PUT|PATCH|DELETE) (\/\S*)$/.exec(requestLine.trim())
  if (request === null) throw new Error(`not a request line: "${requestLine}"`)
  let status = 200
  const statusLine = rest.findIndex((text) => text.startsWith('→'))
  if (statusLine !== -1) {
    const parsed = /^→ (\d{3})\b/.exec(rest[statusLine] ?? '')
    if (parsed === null || statusLine !== rest.length - 1) throw new Error(`the status line must be the last, "→ NNN": "${rest[statusLine] ?? ''}"`)
    status = Number(parsed[1])
    rest.pop()
  }
  const blank = rest.findIndex((text) => text.trim() === '')
  const headerLines = blank === -1 ? rest : rest.slice(0, blank)
  const headers: Record<string, string> = {}
  for (const text of headerLines) {
    const header = /^([A-Za-z-]+):\s*(.*)$/.exec(text)
    if (header === null) throw new Error(`not a header line: "${text}"`)
    headers[(header[1] as string).toLowerCase()] = header[2] as string
  }
  const body = blank === -1 ? undefined : rest.slice(blank + 1).join('\n')
  return { method: request[1] as string, path: request[2] as string, headers, body, status }
}

/**
 * Where `actual` differs from `example` in structure: objects must have the same members in the same
 * order; arrays are compared item by item as far as both go, and both empty or both not; scalars
 * must be of the same JSON type, null matching any (a value that may be null is data).
 */
function shapeProblems (example: unknown, actual: unknown, path = '$'): string[] {
  const kind = (value: unknown): string => value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
  if (Array.isArray(example)) {
    if (!Array.isArray(actual)) return [`${path}: the example has an array, the answer ${kind(actual)}`]
    if ((example.length === 0) !== (actual.length === 0)) return [`${path}: the example has ${example.length} items, the answer ${actual.length}`]
    return example.slice(0, actual.length).flatMap((item, i) => shapeProblems(item, actual[i], `${path}[${i}]`))
  }
  if (example !== null && typeof example === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: the example has an object, the answer ${kind(actual)}`]
    const shown = Object.keys(example)
    const written = Object.keys(actual)
    if (shown.join() !== written.join()) return [`${path}: the example has members ${shown.join(', ')}; the answer ${written.join(', ')}`]
    return shown.flatMap((key) => shapeProblems((example as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], `${path}.${key}`))
  }
  if (example === null || actual === null || kind(example) === kind(actual)) return []
  return [`${path}: the example has a ${kind(example)}, the answer a ${kind(actual)}`]
}

describe('the structure comparison of the examples', () => {
  it('holds member order, nesting and JSON types, lets values and array lengths be data', () => {
    assert.deepEqual(shapeProblems({ a: 1, b: [{ c: 'x' }] }, { a: 2, b: [{ c: 'y' }, { c: 'z' }] }), [])
    assert.deepEqual(shapeProblems({ a: 1, b: 2 }, { b: 2, a: 1 }), ['$: the example has members a, b; the answer b, a'])
    assert.deepEqual(shapeProblems({ a: 1 }, { a: 1, b: 2 }), ['$: the example has members a; the answer a, b'])
    assert.deepEqual(shapeProblems({ a: [{ b: 1, c: 2 }] }, { a: [{ c: 2, b: 1 }] }), ['$.a[0]: the example has members b, c; the answer c, b'])
    assert.deepEqual(shapeProblems({ a: null, b: 1 }, { a: 5, b: null }), [])
    assert.deepEqual(shapeProblems({ a: '1' }, { a: 1 }), ['$.a: the example has a string, the answer a number'])
    assert.deepEqual(shapeProblems({ a: [] }, { a: [1] }), ['$.a: the example has 0 items, the answer 1'])
  })

  it('finds the examples by the convention and refuses a json block without its request', () => {
    const { examples, problems } = examplesOf('docs/api-reference.md')
    assert.deepEqual(problems, [])
    assert.ok(examples.length >= 11, `${examples.length} examples`)
    assert.deepEqual(examplesOf('x.md', 'Answer:\n\n```json\n{"a": 1}\n```\n').problems, ['x.md:3: a json block that does not answer an http request block right before it'])
    assert.deepEqual(examplesOf('x.md', '```http\nGET /me\n```\n\nthen\n\n```json\n{}\n```\n').problems, [
      'x.md:1: an http request without its json answer right after it',
      'x.md:7: a json block that does not answer an http request block right before it',
    ])
    assert.deepEqual(parseRequest(['POST /auth/login', 'Content-Type: application/json', '', '{"a": 1}', '→ 401 Unauthorized']),
      { method: 'POST', path: '/auth/login', headers: { 'content-type': 'application/json' }, body: '{"a": 1}', status: 401 })
    assert.deepEqual(fencedBlocks('text\n```json\n{}\n```\n').map((block) => block.info), ['json'])
  })
})

for (const dialect of DIALECTS) {
  describe(`the examples of ${DOCUMENTS.join(' and ')}, against a server on the demo data (${dialect})`, () => {
    let test: TestStore
    let app: FastifyInstance
    let baseUrl: string
    let partner: TestPartner
    let token: string

    before(async () => {
      test = await createTestStore(dialect)
      await importSources(test.store, [demoSource(DEMO)], {})
      app = await buildTestApp(test.store, { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0' })
      await app.listen({ host: '127.0.0.1', port: 0 })
      baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
      partner = await createPartner(test.store, PARTNER)
      token = await loginToken(app, partner)
    })
    after(async () => {
      await app.close()
      await test.cleanup()
    })

    for (const document of DOCUMENTS) {
      it(`${document}: every example is answered with its status and exactly its members, in its order`, async () => {
        const { examples, problems } = examplesOf(document)
        assert.deepEqual(problems, [], 'examples that break the convention')
        assert.ok(examples.length > 0, `no example found in ${document}`)
        const differences: string[] = []
        for (const example of examples) {
          const headers = Object.fromEntries(Object.entries(example.headers).map(([name, value]) => [name, value.replace('<access_token>', token)]))
          const body = example.body?.replace(/"pak_…"/g, JSON.stringify(partner.clientKey)).replace(/"pas_…"/g, JSON.stringify(partner.secretKey))
          const response = await fetch(baseUrl + example.path, { method: example.method, headers, body, signal: AbortSignal.timeout(10_000) })
          const text = await response.text()
          if (response.status !== example.status) { differences.push(`${example.where} ${example.method} ${example.path}: status ${response.status}, the example says ${example.status}: ${text.slice(0, 300)}`); continue }
          for (const problem of shapeProblems(example.answer, JSON.parse(text))) differences.push(`${example.where} ${example.method} ${example.path}: ${problem}`)
        }
        assert.deepEqual(differences, [])
      })
    }
  })
}
