/** A value that components can subscribe to (the rate-limit wait, shown by a banner anywhere on the page). */
export class Signal<T> {
  private readonly listeners = new Set<(value: T) => void>()
  constructor (private current: T) {}

  get value (): T {
    return this.current
  }

  set (value: T): void {
    if (value === this.current) return
    this.current = value
    for (const listener of this.listeners) listener(value)
  }

  subscribe (listener: (value: T) => void): () => void {
    this.listeners.add(listener)
    return () => { this.listeners.delete(listener) }
  }
}
