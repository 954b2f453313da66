/**
 * When the events of a sync may be shown (docs/operations.md "Events and replicas"). A replica
 * serves a read only while this instance's last check of it is younger than `freshMs` and found
 * it holding everything the primary had when that check began (replica-routing.ts). So once a
 * sync S committed more than `freshMs` ago, every instance's usable check began after S committed,
 * saw S on the primary and the replica at or past it: no instance can then read data older than S
 * from any replica. The instant of the commit is bounded from this instance's side, without
 * comparing clocks across machines: S committed before the primary's answer that first showed it
 * to this instance's check. S becomes visible `freshMs + marginMs` after that answer (the margin
 * covers the drift between machines' clock rates over so short a time, with room to spare).
 */
export class SyncVisibility {
  /** Sync ids this instance saw on the primary, newest last, with when it first saw each. */
  private readonly seen: Array<{ syncId: number, at: number }> = []
  private visible = 0

  constructor (private readonly delayMs: number) {}

  /** The primary showed `syncId` as its last sync in an answer received at `at` (monotonic ms). */
  observe (syncId: number, at: number): void {
    const last = this.seen.at(-1)?.syncId ?? this.visible
    if (syncId > last) this.seen.push({ syncId, at })
  }

  /** The highest sync id that has been visible for long enough, at `now` (monotonic ms). */
  visibleThrough (now: number): number {
    while (this.seen.length > 0 && now - (this.seen[0]?.at ?? now) > this.delayMs) {
      this.visible = this.seen.shift()?.syncId ?? this.visible
    }
    return this.visible
  }
}
