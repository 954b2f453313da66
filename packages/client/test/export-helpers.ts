import { createServer, type Server, type Socket } from 'node:net'
import { PassThrough } from 'node:stream'
import { runExport } from '../src/export/command.js'

/** What one in-process run of the export printed and returned. */
export interface ExportRun { code: number, stdout: string, stderr: string }

/** A writable that keeps what was written; `isTTY` makes it look like a terminal to the command. */
export function capture (isTTY = false): PassThrough & { text: () => string, isTTY: boolean } {
  const stream = new PassThrough() as PassThrough & { text: () => string, isTTY: boolean }
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  stream.text = () => Buffer.concat(chunks).toString('utf8')
  stream.isTTY = isTTY
  return stream
}

export async function runCaptured (argv: string[], options: { env: Record<string, string | undefined>, tty?: boolean, fetch?: typeof fetch, signal?: AbortSignal }): Promise<ExportRun> {
  const stdout = capture()
  const stderr = capture(options.tty ?? false)
  const code = await runExport(argv, { env: options.env, stdout, stderr, fetch: options.fetch, signal: options.signal })
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}

/** A port nothing listens on: bound once to learn a free number, then released. */
export async function closedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => { resolve() }))
  return port
}

/** A TCP server that accepts connections and never answers: what a hung service looks like. */
export async function silentServer (): Promise<{ baseUrl: string, close: () => Promise<void> }> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => { sockets.add(socket) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    },
  }
}

/** Escapes a literal for use inside a RegExp. */
export const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
