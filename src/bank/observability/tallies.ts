// Counters, gauges and histograms as plain numbers, kept without prom-client: counting starts with the Bank, but
// prom-client (and the @opentelemetry/api it loads, ~90 modules) is needed only to write the Prometheus text, so
// it loads on the first scrape, off the start path (issue 15). Each tally answers prom-client's metric interface
// (`get`/`getForPromString`, the values exactly as prom-client's own Counter, Gauge and Histogram list them), so
// a prom-client Registry writes it byte for byte as it wrote those.

type Labels = Record<string, string>;

interface MetricValue {
  labels: Record<string, string | number>;
  sharedLabels?: Labels;
  value: number;
  metricName?: string;
}

export interface MetricObject {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: MetricValue[];
  aggregator: 'sum';
}

interface TallyOptions {
  name: string;
  help: string;
  labelNames?: readonly string[];
}

/** One series' key: its label values in labelNames order. */
function keyOf(labelNames: readonly string[], labels: Labels): string {
  let key = '';
  for (const name of labelNames) key += `${labels[name] ?? ''}\u0000`;
  return key;
}

function labelsOf(labelNames: readonly string[], values: readonly string[]): Labels {
  const labels: Labels = {};
  labelNames.forEach((name, index) => (labels[name] = values[index]));
  return labels;
}

abstract class Tally<S> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  abstract readonly type: MetricObject['type'];
  /** Series in the order they were first used, as prom-client lists them. */
  protected readonly series = new Map<string, S>();

  constructor(options: TallyOptions) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
  }

  protected abstract fresh(labels: Labels): S;
  protected abstract valuesOf(series: S): MetricValue[];

  protected seriesFor(labels: Labels): S {
    const key = keyOf(this.labelNames, labels);
    let found = this.series.get(key);
    if (!found) this.series.set(key, (found = this.fresh(labels)));
    return found;
  }

  reset(): void {
    this.series.clear();
  }

  async get(): Promise<MetricObject> {
    return this.getForPromString();
  }

  async getForPromString(): Promise<MetricObject> {
    const values: MetricValue[] = [];
    for (const series of this.series.values()) values.push(...this.valuesOf(series));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' };
  }
}

interface Scalar {
  labels: Labels;
  value: number;
}

export class CounterTally extends Tally<Scalar> {
  readonly type = 'counter';

  constructor(options: TallyOptions) {
    super(options);
    // prom-client shows a counter without labels at 0 from the start.
    if (this.labelNames.length === 0) this.seriesFor({});
  }

  /** `inc(labels, by)`, or `inc(by)` for a counter without labels, as prom-client takes them. */
  inc(labels: Labels | number = {}, by = 1): void {
    if (typeof labels === 'number') this.seriesFor({}).value += labels;
    else this.seriesFor(labels).value += by;
  }

  /** The series of these label values, bound once for a hot path. */
  labels(...values: string[]): { inc(): void } {
    const series = this.seriesFor(labelsOf(this.labelNames, values));
    return { inc: () => void (series.value += 1) };
  }

  protected fresh(labels: Labels): Scalar {
    return { labels, value: 0 };
  }

  protected valuesOf(series: Scalar): MetricValue[] {
    return [{ labels: series.labels, value: series.value }];
  }
}

export class GaugeTally extends Tally<Scalar> {
  readonly type = 'gauge';

  set(labels: Labels, value: number): void {
    this.seriesFor(labels).value = value;
  }

  protected fresh(labels: Labels): Scalar {
    return { labels, value: 0 };
  }

  protected valuesOf(series: Scalar): MetricValue[] {
    return [{ labels: series.labels, value: series.value }];
  }
}

interface Distribution {
  labels: Labels;
  /** Observations per bucket (not cumulative), the last one past every bound. */
  counts: number[];
  sum: number;
  count: number;
}

export class HistogramTally extends Tally<Distribution> {
  readonly type = 'histogram';
  private readonly buckets: readonly number[];

  constructor(options: TallyOptions & { buckets: readonly number[] }) {
    super(options);
    this.buckets = [...options.buckets].sort((a, b) => a - b);
  }

  observe(labels: Labels, value: number): void {
    this.add(this.seriesFor(labels), value);
  }

  /** The series of these label values, bound once for a hot path. */
  labels(...values: string[]): { observe(value: number): void } {
    const series = this.seriesFor(labelsOf(this.labelNames, values));
    return { observe: (value) => this.add(series, value) };
  }

  private add(series: Distribution, value: number): void {
    let index = 0;
    while (index < this.buckets.length && value > this.buckets[index]) index += 1;
    series.counts[index] += 1;
    series.sum += value;
    series.count += 1;
  }

  protected fresh(labels: Labels): Distribution {
    return { labels, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
  }

  protected valuesOf(series: Distribution): MetricValue[] {
    const bucketName = `${this.name}_bucket`;
    let cumulative = 0;
    const values: MetricValue[] = this.buckets.map((bound, index) => {
      cumulative += series.counts[index];
      return { labels: { le: bound }, sharedLabels: series.labels, value: cumulative, metricName: bucketName };
    });
    values.push(
      { labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: bucketName },
      { labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` },
      { labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` },
    );
    return values;
  }
}
