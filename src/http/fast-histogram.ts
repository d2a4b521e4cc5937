// A histogram for what is observed on every request, shown by a prom-client Registry as one of its
// own. prom-client's Histogram builds a label object, validates and hashes the labels and looks
// the bucket up by its bound as a property name on every observation, even through a child made
// once with labels(): in a CPU profile of score reads that was 1.5 % of the node's time for two
// observations a request, with the garbage it leaves. Here a child is made once per label set,
// and an observation is a walk over the bounds and three additions.
import type { Registry } from 'prom-client';

/** One label set's counts: what the hot path keeps and calls observe() on. */
export class HistogramChild {
  /** counts[i]: observations in (bounds[i-1], bounds[i]]; the last: above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

export class FastHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly children = new Map<string, { labels: Record<L, string>; child: HistogramChild }>();
  private readonly bounds: readonly number[];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    bounds: readonly number[],
    registry: Registry,
  ) {
    if (bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= bounds[i - 1]!))) throw new Error(`${name}: bounds must be finite and increasing`);
    this.bounds = [...bounds];
    // A Registry asks a metric for name, help, type and get(): this is one, as prom-client's are.
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The child of these labels, made on first use; keep it rather than asking again per observation. */
  child(labels: Record<L, string>): HistogramChild {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let entry = this.children.get(key);
    if (!entry) {
      entry = { labels: { ...labels }, child: new HistogramChild(this.bounds) };
      this.children.set(key, entry);
    }
    return entry.child;
  }

  /** The samples in prom-client's form: cumulative buckets with `le`, then _sum and _count, per child. */
  get(): { name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: Sample[] } {
    const values: Sample[] = [];
    for (const { labels, child } of this.children.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += child.counts[i]!;
        values.push({ labels: { le: bound, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: child.count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: child.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: child.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.children.clear();
  }
}
