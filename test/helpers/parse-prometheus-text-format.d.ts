// The parser's package ships no types; this is the part the tests use.
declare module 'parse-prometheus-text-format' {
  interface ParsedSample {
    labels?: Record<string, string>
    value?: string
    buckets?: Record<string, string>
    count?: string
    sum?: string
  }
  interface ParsedFamily {
    name: string
    help: string
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'
    metrics: ParsedSample[]
  }
  export default function parsePrometheusTextFormat (text: string): ParsedFamily[]
}
