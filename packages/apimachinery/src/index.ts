/**
 * The shared vocabulary of kcm-ts: the counterpart of `k8s.io/apimachinery` and
 * `k8s.io/utils/clock`. This first slice holds the injected {@link Clock}.
 *
 * @packageDocumentation
 */
export { FakeClock, RealClock, realClock } from './clock.js';
export type { Clock, PassiveClock, Ticker, Timer } from './clock.js';
