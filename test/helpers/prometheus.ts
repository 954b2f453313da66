import parsePrometheusTextFormat from 'parse-prometheus-text-format'

/** A scrape parsed by a real Prometheus text-format parser, families by name. */
export type Scrape = Map<string, ReturnType<typeof parsePrometheusTextFormat>[number]>

export function parseScrape (text: string): Scrape {
  return new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]))
}

/** The sum of a counter's or gauge's samples whose labels include `labels`. */
export function sampleSum (scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  const family = scrape.get(name)
  if (family === undefined) throw new Error(`no metric ${name} in the scrape`)
  return family.metrics
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value))
    .reduce((total, sample) => total + Number(sample.value ?? sample.count ?? 0), 0)
}
