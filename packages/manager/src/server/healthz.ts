// Health checks as kube's components serve them
// (staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go: HealthChecker,
// PingHealthz, InstallHandler, handleRootHealth; controller-manager/pkg/
// healthz: MutableHealthzHandler, NamedPingChecker). Transport-free: the
// server turns a HealthAnswer into an HTTP response.

/**
 * One named health check: Go's `healthz.HealthChecker`. `check` resolves with
 * `undefined` when healthy, or with the error.
 *
 * @category Endpoints
 */
export interface HealthChecker {
  /** The check's name, shown as `[+]name ok` and served at `/healthz/name`. */
  readonly name: string;
  /** `undefined` when healthy, else what is wrong. */
  check(): Error | undefined | Promise<Error | undefined>;
}

/**
 * The always-healthy check `ping`, used when a handler has no other check.
 *
 * @category Endpoints
 */
export const pingHealthz: HealthChecker = { name: 'ping', check: () => undefined };

/**
 * A check named after a controller that only says the controller started:
 * Go's `NamedPingChecker`.
 *
 * @category Endpoints
 */
export function namedPingChecker(name: string): HealthChecker {
  return { name, check: () => undefined };
}

/**
 * An HTTP answer from a health endpoint.
 *
 * @category Endpoints
 */
export interface HealthAnswer {
  /** 200, 404 or 500. */
  status: number;
  /** The plain-text body. */
  body: string;
}

/**
 * A list of checks that can grow after start (controllers add theirs once
 * started): Go's `MutableHealthzHandler`.
 *
 * @category Endpoints
 */
export class MutableHealthChecks {
  readonly #checks: HealthChecker[];

  /** @param checks - the checks known at start */
  constructor(checks: readonly HealthChecker[] = []) {
    this.#checks = [...checks];
  }

  /** Adds checks; later requests run them too. */
  addHealthChecker(...checks: HealthChecker[]): void {
    this.#checks.push(...checks);
  }

  /** The checks, or `ping` alone when there are none (Go's InstallHandler). */
  checks(): HealthChecker[] {
    return this.#checks.length > 0 ? [...this.#checks] : [pingHealthz];
  }

  /**
   * Answers `/<endpoint>` (`healthz`, `readyz` or `livez`) or
   * `/<endpoint>/<check>`, honouring `?verbose` and `?exclude=name`.
   */
  async serve(endpoint: string, rest: string, query: URLSearchParams): Promise<HealthAnswer> {
    const checks = this.checks();
    if (rest !== '') {
      const one = checks.find((c) => c.name === rest);
      if (!one) return { status: 404, body: '404 page not found\n' };
      const err = await run(one);
      return err
        ? { status: 500, body: `internal server error: ${err.message}\n` }
        : { status: 200, body: 'ok' };
    }
    const excluded = new Set(query.getAll('exclude'));
    let failed = false;
    let out = '';
    for (const check of checks) {
      if (excluded.has(check.name)) {
        excluded.delete(check.name);
        out += `[+]${check.name} excluded: ok\n`;
        continue;
      }
      const err = await run(check);
      if (err) {
        failed = true;
        // The reason stays in the log; the endpoint may be public.
        out += `[-]${check.name} failed: reason withheld\n`;
      } else {
        out += `[+]${check.name} ok\n`;
      }
    }
    for (const name of excluded)
      out += `warn: some health checks cannot be excluded: no matches for "${name}"\n`;
    if (failed) return { status: 500, body: `${out}${endpoint} check failed\n` };
    if (!query.has('verbose')) return { status: 200, body: 'ok' };
    return { status: 200, body: `${out}${endpoint} check passed\n` };
  }
}

async function run(check: HealthChecker): Promise<Error | undefined> {
  try {
    return await check.check();
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
