/**
 * How far apart two colours look, for people with normal colour vision and with each common
 * colour vision deficiency: each colour is run through the Machado, Oliveira & Fernandes (2009)
 * simulation at full severity (protanopia, deuteranopia, tritanopia) in linear RGB, and compared
 * in CIELAB (ΔE*76, D65). Around 2.3 is a just noticeable difference; lines are told apart at a
 * glance from about 15.
 */

type Matrix = [[number, number, number], [number, number, number], [number, number, number]]

const VISIONS: Record<string, Matrix> = {
  normal: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
  protanopia: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
  deuteranopia: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
  tritanopia: [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}

/** `#rrggbb` or `rgb(r, g, b)` → [r, g, b] in 0..255. */
export function rgbOf (colour: string): [number, number, number] {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour)
  if (hex !== null) return [parseInt(hex[1] ?? '', 16), parseInt(hex[2] ?? '', 16), parseInt(hex[3] ?? '', 16)]
  const rgb = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(colour)
  if (rgb !== null) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])]
  throw new Error(`not a colour: ${colour}`)
}

const linear = (channel: number): number => {
  const c = channel / 255
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
}

function lab ([r, g, b]: [number, number, number]): [number, number, number] {
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
  const f = (t: number) => t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))]
}

function seenAs (colour: [number, number, number], matrix: Matrix): [number, number, number] {
  const [r, g, b] = colour.map(linear) as [number, number, number]
  return matrix.map((row) => Math.min(1, Math.max(0, row[0] * r + row[1] * g + row[2] * b))) as [number, number, number]
}

/** The smallest ΔE*76 between the two colours over normal vision and the three simulated deficiencies, and where. */
export function leastDifference (a: string, b: string): { difference: number, vision: string } {
  let least = { difference: Infinity, vision: '' }
  for (const [vision, matrix] of Object.entries(VISIONS)) {
    const [la, lb] = [lab(seenAs(rgbOf(a), matrix)), lab(seenAs(rgbOf(b), matrix))]
    const difference = Math.hypot(la[0] - lb[0], la[1] - lb[1], la[2] - lb[2])
    if (difference < least.difference) least = { difference, vision }
  }
  return least
}
