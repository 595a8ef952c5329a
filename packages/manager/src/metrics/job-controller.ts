// The batch controllers' metrics in the manager's Prometheus registry: what
// pkg/controller/job/metrics/metrics.go's and pkg/controller/cronjob/
// metrics/metrics.go's Register do with the legacy registry, through the
// providers of @kcm-ts/job and @kcm-ts/cronjob.
import { Counter, Histogram, type Registry } from 'prom-client';
import type {
  CronJobHistogram,
  CronJobMetricDescriptor,
  CronJobMetricsProvider,
} from '@kcm-ts/cronjob';
import type {
  CounterVecMetric,
  HistogramVecMetric,
  JobMetricDescriptor,
  JobMetricsProvider,
} from '@kcm-ts/job';

/**
 * A {@link JobMetricsProvider} that registers each metric in `registry`,
 * once: a second provider on the same registry (a manager that leads
 * again) records into the metrics already there.
 *
 * @category Metrics
 */
export function prometheusJobMetricsProvider(registry: Registry): JobMetricsProvider {
  return {
    newCounterVec(d: JobMetricDescriptor): CounterVecMetric {
      const counter =
        (registry.getSingleMetric(d.name) as Counter | undefined) ??
        new Counter({
          name: d.name,
          help: d.help,
          labelNames: [...d.labels],
          registers: [registry],
        });
      return {
        withLabelValues: (...values) => {
          const series = counter.labels(...values);
          return { inc: () => series.inc(), add: (v) => series.inc(v) };
        },
      };
    },
    newHistogramVec(d: JobMetricDescriptor): HistogramVecMetric {
      const histogram =
        (registry.getSingleMetric(d.name) as Histogram | undefined) ??
        new Histogram({
          name: d.name,
          help: d.help,
          labelNames: [...d.labels],
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
  };
}

/**
 * A {@link CronJobMetricsProvider} that registers its histogram in
 * `registry`, once, as {@link prometheusJobMetricsProvider} does.
 *
 * @category Metrics
 */
export function prometheusCronJobMetricsProvider(registry: Registry): CronJobMetricsProvider {
  return {
    newHistogram(d: CronJobMetricDescriptor): CronJobHistogram {
      const histogram =
        (registry.getSingleMetric(d.name) as Histogram | undefined) ??
        new Histogram({
          name: d.name,
          help: d.help,
          ...(d.buckets ? { buckets: [...d.buckets] } : {}),
          registers: [registry],
        });
      return { observe: (v) => histogram.observe(v) };
    },
  };
}
