declare module 'parse-prometheus-text-format' {
  /** prom2json's shape: values are strings; histograms and summaries carry count/sum (and buckets/quantiles). */
  interface Sample {
    readonly labels?: Record<string, string>;
    readonly value?: string;
    readonly count?: string;
    readonly sum?: string;
    readonly buckets?: Record<string, string>;
  }
  interface Family {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
