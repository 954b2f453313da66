import type { Worker } from 'node:cluster'

/**
 * Connections the primary is handing to a worker (docs/operations.md "Workers"). node:cluster's
 * primary accepts each connection and sends it to a worker, keeping its own copy until the worker
 * answers that it took it; a worker that dies before answering never does, and that copy stayed
 * open for good: the client waited for an answer that could not come, and once it gave up the
 * primary kept the socket in CLOSE-WAIT, one per crash. Each copy in flight is noted here, by the
 * message that carries it, and dropped when the worker answers; when the worker exits, the ones
 * left are reset (the client sees ECONNRESET at once) and closed.
 *
 * This reads node:cluster's own messages (`{cmd: 'NODE_CLUSTER', act: 'newconn', seq}` out, `{ack:
 * seq}` back), which Node does not document: were they to change, nothing is noted and nothing
 * else changes.
 */

/** A libuv TCP handle as the cluster hands it over (not a net.Socket). */
interface ConnectionHandle {
  close: () => void
  /** Closes with a TCP RST (Node ≥ 16.17; what socket.resetAndDestroy() uses). */
  reset?: (callback?: () => void) => number
}

interface ClusterMessage { cmd?: unknown, act?: unknown, seq?: unknown, ack?: unknown }

/** Notes every connection handed to `worker` until it is taken; returns how many were reset at its exit (via the callback). */
export function resetHandoffsOnExit (worker: Worker, onReset: (count: number) => void = () => {}): void {
  const inFlight = new Map<number, ConnectionHandle>()
  const child = worker.process as unknown as { send: (...args: unknown[]) => boolean, on: (event: string, listener: (message: unknown) => void) => void }
  const send = child.send.bind(child)
  child.send = (...args: unknown[]): boolean => {
    const [message, handle] = args as [ClusterMessage | undefined, ConnectionHandle | undefined]
    if (message?.cmd === 'NODE_CLUSTER' && message.act === 'newconn' && typeof message.seq === 'number' && handle !== undefined && handle !== null) {
      inFlight.set(message.seq, handle)
    }
    return send(...args)
  }
  child.on('internalMessage', (message) => {
    const reply = message as ClusterMessage | undefined
    if (reply?.cmd === 'NODE_CLUSTER' && typeof reply.ack === 'number') inFlight.delete(reply.ack)
  })
  worker.once('exit', () => {
    const left = [...inFlight.values()]
    inFlight.clear()
    for (const handle of left) {
      try {
        if (typeof handle.reset === 'function') handle.reset()
        else handle.close()
      } catch {
        // closed already
      }
    }
    if (left.length > 0) onReset(left.length)
  })
}
