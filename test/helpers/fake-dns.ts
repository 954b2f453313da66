import { createSocket } from 'node:dgram'
import type { AddressInfo } from 'node:net'

/**
 * A name server for tests, on UDP 127.0.0.1 at a random port: an A query for a listed name is
 * answered with its address, an AAAA query for it with no records; a name under one of the
 * `silent` suffixes is never answered (a name server that does not respond); any other name is
 * NXDOMAIN. Enough of DNS (RFC 1035) for c-ares's queries: one question, answers pointing at it.
 */

export interface FakeDns {
  /** `127.0.0.1:port`, as WEBHOOK_DNS_SERVERS and setServers take it. */
  server: string
  /** Queries received, per name (lower case), answered or not. */
  queries: (name: string) => number
  /** Queries received for names under a silent suffix. */
  unanswered: () => number
  close: () => Promise<void>
}

const TYPE_A = 1

/** The question's name, its type, and where the question ends; undefined for a malformed query. */
function readQuestion (message: Buffer): { name: string, type: number, end: number } | undefined {
  if (message.length < 12 || message.readUInt16BE(4) !== 1) return undefined
  const labels: string[] = []
  let offset = 12
  while (offset < message.length) {
    const length = message[offset] ?? 0
    offset++
    if (length === 0) break
    if (length > 63) return undefined
    labels.push(message.subarray(offset, offset + length).toString('latin1'))
    offset += length
  }
  if (offset + 4 > message.length) return undefined
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(offset), end: offset + 4 }
}

function answer (query: Buffer, question: { type: number, end: number }, address: string | undefined): Buffer {
  const header = Buffer.alloc(12)
  query.copy(header, 0, 0, 2)
  // QR, the query's opcode and RD, AA, RA; rcode 3 (NXDOMAIN) for an unknown name.
  const flags = 0x8000 | (query.readUInt16BE(2) & 0x7900) | 0x0400 | 0x0080 | (address === undefined ? 3 : 0)
  header.writeUInt16BE(flags, 2)
  header.writeUInt16BE(1, 4)
  const records: Buffer[] = []
  if (address !== undefined && question.type === TYPE_A) {
    const record = Buffer.alloc(16)
    record.writeUInt16BE(0xc00c, 0) // the name: a pointer to the question's
    record.writeUInt16BE(TYPE_A, 2)
    record.writeUInt16BE(1, 4) // class IN
    record.writeUInt32BE(60, 6) // TTL
    record.writeUInt16BE(4, 10)
    address.split('.').forEach((part, index) => record.writeUInt8(Number(part), 12 + index))
    records.push(record)
  }
  header.writeUInt16BE(records.length, 6)
  return Buffer.concat([header, query.subarray(12, question.end), ...records])
}

/** Starts the server; `names` maps a name to its IPv4 address (listed names may be added later). */
export async function startFakeDns (names: Map<string, string>, silent: string[]): Promise<FakeDns> {
  const socket = createSocket('udp4')
  const counts = new Map<string, number>()
  let unanswered = 0
  socket.on('message', (message, from) => {
    const question = readQuestion(message)
    if (question === undefined) return
    counts.set(question.name, (counts.get(question.name) ?? 0) + 1)
    if (silent.some((suffix) => question.name === suffix || question.name.endsWith(`.${suffix}`))) {
      unanswered++
      return
    }
    socket.send(answer(message, question, names.get(question.name)), from.port, from.address)
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject)
    socket.bind(0, '127.0.0.1', () => { socket.off('error', reject); resolve() })
  })
  const { port } = socket.address() as AddressInfo
  return {
    server: `127.0.0.1:${port}`,
    queries: (name) => counts.get(name.toLowerCase()) ?? 0,
    unanswered: () => unanswered,
    close: async () => { await new Promise<void>((resolve) => socket.close(() => resolve())) },
  }
}
