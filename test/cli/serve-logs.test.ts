import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { startServer } from '../../src/cli/commands/serve.js'
import { humanLogStream } from '../../src/cli/log-format.js'
import { createTestStore, type TestStore } from '../helpers/stores.js'
import { TEST_JWT_SECRET } from '../helpers/app.js'

/** `serve` logs for people on a terminal (pino-pretty) and JSON lines anywhere else. */

function captured (isTTY: boolean): { stream: PassThrough & { isTTY?: boolean }, text: () => string } {
  const stream: PassThrough & { isTTY?: boolean } = new PassThrough()
  stream.isTTY = isTTY
  let text = ''
  stream.on('data', (chunk: Buffer) => { text += chunk.toString() })
  return { stream, text: () => text }
}

describe('serve: log format by where stdout goes', () => {
  let test: TestStore
  before(async () => { test = await createTestStore('sqlite') })
  after(async () => { await test.cleanup() })

  // Elsewhere (a pipe) the logs stay JSON lines: test/http/serve.test.ts reads them from a child process.
  it('writes human lines when stdout is a terminal', async () => {
    const out = captured(true)
    let stderr = ''
    const server = await startServer({
      stdout: out.stream,
      stderr: { write: (text: string) => { stderr += text }, isTTY: false },
      env: { DATABASE_URL: test.databaseUrl, PORT: '0', LOG_LEVEL: 'info', JWT_SECRET: TEST_JWT_SECRET },
    })
    await server.close()
    const listening = out.text().split('\n').find((line) => line.includes('Server listening at'))
    assert.ok(listening !== undefined, out.text())
    // `[HH:MM:SS] INFO: Server listening at http://127.0.0.1:PORT`, colours stripped.
    // eslint-disable-next-line no-control-regex
    assert.match(listening.replace(/\u001b\[[0-9;]*m/g, ''), /^\[\d{2}:\d{2}:\d{2}\] INFO: Server listening at http:\/\/127\.0\.0\.1:\d+$/)
    // stderr holds only the store's line (test/cli/serve-store.test.ts).
    assert.equal(stderr, `Store: SQLite ${test.databaseUrl.slice('sqlite:'.length)}\n`)
  })

  it('formats a request log line with its request id', async () => {
    const out = captured(true)
    const stream = humanLogStream(out.stream, false)
    stream.write(JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 22, 12, 0, 0), pid: 1, hostname: 'h', request_id: 'abc', msg: 'request completed' }) + '\n')
    await new Promise((resolve) => setImmediate(resolve))
    assert.match(out.text(), /^\[\d{2}:\d{2}:\d{2}\] INFO: request completed\n {4}request_id: "abc"\n$/)
  })
})
