/** "1 brand", "2 brands", "1 daily row", "0 days": a count and its noun, in English, for messages to people. */
export function countOf (count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`
}
