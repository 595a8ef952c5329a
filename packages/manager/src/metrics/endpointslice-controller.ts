// The EndpointSlice controller's metrics in the manager's Prometheus
// registry: what pkg/controller/endpointslice/metrics/metrics.go's Register
// does with the legacy registry, through the provider of
// @kcm-ts/endpointslice.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type {
  CounterVecMetric,
  EndpointSliceMetricDescriptor,
  EndpointSliceMetricsProvider,
  GaugeVecMetric,
  HistogramVecMetric,
} from '@kcm-ts/endpointslice';

/**
 * An {@link EndpointSliceMetricsProvider} that registers each metric in
 * `registry`, once: a manager that leads again records into the metrics
 * already there.
 *
 * @category Metrics
 */
export function prometheusEndpointSliceMetricsProvider(
  registry: Registry,
): EndpointSliceMetricsProvider {
  const labelNames = (d: EndpointSliceMetricDescriptor) => [...d.labels];
  return {
    newCounterVec(d): CounterVecMetric {
      const counter =
        (registry.getSingleMetric(d.name) as Counter | undefined) ??
        new Counter({
          name: d.name,
          help: d.help,
          labelNames: labelNames(d),
          registers: [registry],
        });
      return {
        withLabelValues: (...values) => {
          const series = counter.labels(...values);
          return { inc: () => series.inc(), add: (v) => series.inc(v) };
        },
      };
    },
    newHistogramVec(d): HistogramVecMetric {
      const histogram =
        (registry.getSingleMetric(d.name) as Histogram | undefined) ??
        new Histogram({
          name: d.name,
          help: d.help,
          labelNames: labelNames(d),
          ...(d.buckets ? { buckets: [...d.buckets] } : {}),
          registers: [registry],
        });
      return {
        withLabelValues: (...values) => {
          const series = histogram.labels(...values);
          return { observe: (v) => series.observe(v) };
        },
      };
    },
    newGaugeVec(d): GaugeVecMetric {
      const gauge =
        (registry.getSingleMetric(d.name) as Gauge | undefined) ??
        new Gauge({ name: d.name, help: d.help, labelNames: labelNames(d), registers: [registry] });
      return {
        withLabelValues: (...values) => {
          const series = gauge.labels(...values);
          return { set: (v) => series.set(v) };
        },
      };
    },
  };
}
