import { once } from 'node:events'
import { open, rename, rm } from 'node:fs/promises'
import type { Writable } from 'node:stream'

/**
 * Where an export's text goes. A file is written as FILE.partial and renamed to FILE only once the
 * last chunk is written, so a file named FILE is always complete; on every failure (API error,
 * network, disk, interruption) the partial file is removed before the error is reported.
 */

/** A chunk source stopped by the signal (Ctrl-C): the export was interrupted, not failed. */
export class InterruptedError extends Error {
  constructor () {
    super('interrupted')
    this.name = 'InterruptedError'
  }
}

/** The file could not be created or written: the path, and the system's reason without its syscall noise. */
export class OutputError extends Error {
  constructor (readonly path: string, cause: unknown, action: 'read' | 'write' = 'write') {
    const reason = cause instanceof Error ? cause.message.replace(/, \w+ '.*'$/, '') : String(cause)
    super(`cannot ${action} ${path} (${reason})`, { cause })
    this.name = 'OutputError'
  }
}

/** Bytes gathered before one write to the file: fewer system calls than one per row. */
const FLUSH_BYTES = 64 * 1024

export async function writeToFile (path: string, text: AsyncIterable<string>, signal?: AbortSignal): Promise<void> {
  const partial = `${path}.partial`
  // Opened before the first request, so an unwritable path fails before any API call.
  const handle = await open(partial, 'w').catch((error: unknown) => { throw new OutputError(partial, error) })
  let pending: string[] = []
  let pendingBytes = 0
  const flush = async () => {
    const data = pending.join('')
    pending = []
    pendingBytes = 0
    await handle.writeFile(data).catch((error: unknown) => { throw new OutputError(partial, error) })
  }
  try {
    await copyUntilAborted(text, async (chunk) => {
      pending.push(chunk)
      pendingBytes += chunk.length
      if (pendingBytes >= FLUSH_BYTES) await flush()
    }, signal)
    await flush()
    await handle.close()
    await rename(partial, path)
  } catch (error) {
    // close() waits for a write still in flight; only then is removing the file final.
    await handle.close().catch(() => {})
    await rm(partial, { force: true })
    throw error
  }
}

export async function writeToStream (out: Writable, text: AsyncIterable<string>, signal?: AbortSignal): Promise<void> {
  await copyUntilAborted(text, async (chunk) => {
    // once() rejects if the stream errors while we wait for it to drain.
    if (!out.write(chunk)) await once(out, 'drain')
  }, signal)
}

/**
 * Copies every chunk, or rejects with InterruptedError as soon as the signal fires, even while a
 * request is in flight (a stream pipeline would wait for the source's pending await). The loop
 * left behind stops at its next chunk without writing it.
 */
async function copyUntilAborted (text: AsyncIterable<string>, write: (chunk: string) => Promise<void>, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) throw new InterruptedError()
  const copying = (async () => {
    for await (const chunk of text) {
      if (signal?.aborted === true) return
      await write(chunk)
    }
  })()
  if (signal === undefined) return await copying
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => { reject(new InterruptedError()) }
    signal.addEventListener('abort', onAbort, { once: true })
  })
  // Whichever loses the race must not surface later as an unhandled rejection.
  copying.catch(() => {})
  aborted.catch(() => {})
  try {
    await Promise.race([copying, aborted])
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort)
  }
}
