// The leader-election health check: client-go
// tools/leaderelection/healthzadaptor.go (HealthzAdaptor,
// NewLeaderHealthzAdaptor).
import type { LeaderElector } from './leader-elector.js';

/**
 * A health check that fails while this process believes it leads yet has not
 * renewed its lease for longer than the lease duration plus a tolerance (a
 * stuck renew loop, for instance). Followers are always healthy. Go's
 * `leaderelection.HealthzAdaptor`.
 *
 * Pass it as `watchDog` in the elector's config, or call
 * {@link HealthzAdaptor.setLeaderElection} yourself.
 *
 * @category Health
 */
export class HealthzAdaptor {
  readonly #timeout: number;
  #elector: LeaderElector | undefined;

  /** @param timeout - the tolerance in ms beyond the lease duration (Go's `NewLeaderHealthzAdaptor(timeout)`) */
  constructor(timeout: number) {
    this.#timeout = timeout;
  }

  /** The check's name: `leaderElection`. */
  name(): string {
    return 'leaderElection';
  }

  /** `undefined` when healthy (always, until an elector is attached), otherwise the error. */
  check(): Error | undefined {
    return this.#elector?.check(this.#timeout);
  }

  /** Attaches the elector to watch. */
  setLeaderElection(elector: LeaderElector): void {
    this.#elector = elector;
  }
}
