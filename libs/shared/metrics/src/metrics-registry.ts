import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
  type Metric,
} from 'prom-client';

/** The Prometheus text exposition of a registry, ready to send. */
export interface MetricsExposition {
  contentType: string;
  body: string;
}

/**
 * The one metrics registry of a service process (prom-client's global registry is not used, so
 * several apps started in one test process never share or collide on series). Libraries ask it
 * for their counters, gauges and histograms by name; asking twice for one name returns the same
 * metric, so a provider created twice (two modules, a test) does not throw.
 */
export class MetricsRegistry {
  readonly registry = new Registry();

  /** `service` labels every series (the scrape config's job says the same; this survives relabelling). */
  constructor(
    readonly service: string,
    options: { processDefaults?: boolean } = {},
  ) {
    this.registry.setDefaultLabels({ service });
    // CPU, memory, GC, handles and event-loop lag (nodejs_eventloop_lag_*), sampled by prom-client.
    if (options.processDefaults ?? true) collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
  }

  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    return this.getOrCreate(config.name, () => new Counter({ ...config, registers: [this.registry] }));
  }

  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
    return this.getOrCreate(config.name, () => new Gauge({ ...config, registers: [this.registry] }));
  }

  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
    return this.getOrCreate(config.name, () => new Histogram({ ...config, registers: [this.registry] }));
  }

  async exposition(): Promise<MetricsExposition> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private getOrCreate<M extends Metric>(name: string, create: () => M): M {
    return (this.registry.getSingleMetric(name) as M | undefined) ?? create();
  }
}

/**
 * The registry a library's metrics go to when the app did not import MetricsModule (a library's
 * integration test): counting still works, nothing is exported.
 */
export const unexportedRegistry = (service: string): MetricsRegistry => new MetricsRegistry(service, { processDefaults: false });

/**
 * Sets a counter to durable totals read from a database at scrape time (a counter whose truth
 * lives in a table, bumped in the transaction that records what it counts). prom-client has no
 * `set` on counters; resetting and adding the total is its documented way for such collectors.
 */
export function setCounterTotals<L extends string>(counter: Counter<L>, totals: Array<{ labels: Partial<Record<L, string>>; value: number }>): void {
  counter.reset();
  for (const { labels, value } of totals) counter.inc(labels, value);
}
