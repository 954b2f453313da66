/**
 * A small seeded PRNG for the demo generator. Math.random cannot be seeded, and the demo data
 * must be byte-for-byte reproducible: each account gets its own generator, seeded from a string
 * naming it (seed, brand, platform, account), so its numbers never depend on what was
 * generated before it.
 */

/** cyrb128: hashes a string into four 32-bit words, the state sfc32 needs. */
function hashSeed (text: string): [number, number, number, number] {
  let h1 = 1779033703
  let h2 = 3144134277
  let h3 = 1013904242
  let h4 = 2773480762
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i)
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067)
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233)
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213)
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179)
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067)
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233)
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213)
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179)
  h1 ^= (h2 ^ h3 ^ h4)
  h2 ^= h1
  h3 ^= h1
  h4 ^= h1
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0]
}

/** Seeded random numbers with the few distributions the generator needs. */
export class Random {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor (seed: string) {
    [this.a, this.b, this.c, this.d] = hashSeed(seed)
    // The first outputs of sfc32 are still close to the seed: discard them.
    for (let i = 0; i < 12; i++) this.next()
  }

  /** sfc32: uniform in [0, 1). */
  next (): number {
    this.a >>>= 0; this.b >>>= 0; this.c >>>= 0; this.d >>>= 0
    let t = (this.a + this.b) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.d = (this.d + 1) | 0
    t = (t + this.d) | 0
    this.c = (this.c + t) | 0
    return (t >>> 0) / 4294967296
  }

  /** Uniform in [min, max). */
  between (min: number, max: number): number {
    return min + (max - min) * this.next()
  }

  /** Uniform integer in [min, max], both included. */
  int (min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  /** True with probability p. */
  chance (p: number): boolean {
    return this.next() < p
  }

  pick<T> (items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** Picks by weight: `[[value, weight], …]`. */
  weighted<T> (choices: ReadonlyArray<readonly [T, number]>): T {
    let total = 0
    for (const [, weight] of choices) total += weight
    let roll = this.next() * total
    for (const [value, weight] of choices) {
      roll -= weight
      if (roll < 0) return value
    }
    return (choices[choices.length - 1] as readonly [T, number])[0]
  }

  /** Log-uniform in [min, max): magnitudes such as follower counts spread over decades. */
  logBetween (min: number, max: number): number {
    return Math.exp(this.between(Math.log(min), Math.log(max)))
  }

  /** Approximately standard normal (sum of four uniforms, scaled to unit variance). */
  normal (): number {
    return (this.next() + this.next() + this.next() + this.next() - 2) * 1.7320508
  }

  /**
   * Multiplicative noise around 1 (lognormal-like), so values stay positive and a spread of
   * 0.3 gives day-to-day swings of roughly ±30 %.
   */
  noise (spread: number): number {
    return Math.exp(this.normal() * spread)
  }

  /** Poisson-distributed count with the given mean (Knuth; means here are small). */
  poisson (mean: number): number {
    if (mean <= 0) return 0
    if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()))
    const limit = Math.exp(-mean)
    let k = 0
    let p = this.next()
    while (p > limit) {
      k++
      p *= this.next()
    }
    return k
  }

  /** A string of `length` characters from `alphabet`. */
  chars (alphabet: string, length: number): string {
    let out = ''
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)]
    return out
  }
}
