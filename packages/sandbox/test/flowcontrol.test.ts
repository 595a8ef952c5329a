// Priority and fairness, piece by piece: which flow schema and level a
// request falls under, how many seats each level gets and a request takes,
// how a level's queues share its seats, and the Retry-After it answers with.
import fc from 'fast-check';
import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { DroppedRequestsTracker } from '../src/apiserver/flowcontrol/dropped-requests-tracker.js';
import type { RequestDigest } from '../src/apiserver/flowcontrol/match.js';
import { PriorityAndFairness } from '../src/apiserver/flowcontrol/priority-and-fairness.js';
import { QueueSet, type StartResult } from '../src/apiserver/flowcontrol/queue-set.js';
import { dealHand, hashFlowID } from '../src/apiserver/flowcontrol/shuffle-sharding.js';
import { listSeats } from '../src/apiserver/flowcontrol/work-estimator.js';

const admin = {
  username: 'kubernetes-admin',
  groups: ['kubeadm:cluster-admins', 'system:authenticated'],
};
const manager = { username: 'system:kube-controller-manager', groups: ['system:authenticated'] };
const node = { username: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] };
const masters = { username: 'root', groups: ['system:masters', 'system:authenticated'] };
const anonymous = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
const sa = (ns: string, name: string) => ({
  username: `system:serviceaccount:${ns}:${name}`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
});

function resource(
  user: RequestDigest['user'],
  verb: string,
  apiGroup: string,
  resourcePath: string,
  namespace = '',
): RequestDigest {
  const [res = '', subresource = ''] = resourcePath.split('/');
  return {
    user,
    isResourceRequest: true,
    verb,
    apiGroup,
    resource: res,
    subresource,
    namespace,
    name: '',
    path: '',
  };
}

const nonResource = (user: RequestDigest['user'], verb: string, path: string): RequestDigest => ({
  user,
  isResourceRequest: false,
  verb,
  apiGroup: '',
  resource: '',
  subresource: '',
  namespace: '',
  name: '',
  path,
});

const apf = () => new PriorityAndFairness({ serverConcurrencyLimit: 600, clock: new FakeClock() });

describe('classification', () => {
  it.each([
    [
      'the admin',
      resource(admin, 'list', '', 'pods', 'default'),
      'global-default',
      'global-default',
    ],
    ['system:masters', resource(masters, 'create', 'apps', 'deployments', 'x'), 'exempt', 'exempt'],
    [
      "the manager's Lease",
      resource(manager, 'update', 'coordination.k8s.io', 'leases', 'kube-system'),
      'system-leader-election',
      'leader-election',
    ],
    [
      'the manager listing pods',
      resource(manager, 'list', '', 'pods'),
      'kube-controller-manager',
      'workload-high',
    ],
    [
      "the manager's endpoints",
      resource(manager, 'update', '', 'endpoints', 'default'),
      'endpoint-controller',
      'workload-high',
    ],
    [
      "a node's status",
      resource(node, 'patch', '', 'nodes/status'),
      'system-node-high',
      'node-high',
    ],
    ["a node's pods", resource(node, 'list', '', 'pods'), 'system-nodes', 'system'],
    [
      'a kube-system service account electing a leader',
      resource(sa('kube-system', 'x'), 'get', 'coordination.k8s.io', 'leases', 'x'),
      'system-leader-election',
      'leader-election',
    ],
    [
      'a kube-system service account electing with a ConfigMap elsewhere',
      resource(sa('kube-system', 'x'), 'update', '', 'configmaps', 'x'),
      'workload-leader-election',
      'leader-election',
    ],
    [
      'a kube-system service account',
      resource(sa('kube-system', 'x'), 'list', '', 'pods'),
      'kube-system-service-accounts',
      'workload-high',
    ],
    [
      'another service account',
      resource(sa('default', 'x'), 'list', '', 'pods'),
      'service-accounts',
      'workload-low',
    ],
    ['a probe', nonResource(anonymous, 'get', '/readyz'), 'probes', 'exempt'],
    ['discovery', nonResource(admin, 'get', '/apis'), 'global-default', 'global-default'],
  ])('puts %s under %s at %s', (_what, digest, flowSchema, priorityLevel) => {
    expect(apf().classify(digest)).toMatchObject({ flowSchema, priorityLevel });
  });

  it('tells flows apart by user, or by namespace for the controller manager', () => {
    const p = apf();
    const a = p.classify(resource(admin, 'list', '', 'pods', 'a'));
    expect(p.classify(resource(admin, 'list', '', 'pods', 'b')).flowHash).toBe(a.flowHash);
    expect(p.classify(resource(sa('default', 'x'), 'list', '', 'pods')).flowHash).not.toBe(
      p.classify(resource(sa('default', 'y'), 'list', '', 'pods')).flowHash,
    );
    const m = p.classify(resource(manager, 'list', '', 'pods', 'a'));
    expect(p.classify(resource(manager, 'list', '', 'pods', 'b')).flowHash).not.toBe(m.flowHash);
  });
});

describe('concurrency limits', () => {
  it("shares kube-apiserver's 600 seats by the levels' nominal shares", () => {
    const p = apf();
    expect(p.concurrencyLimit('global-default')).toBe(49);
    expect(p.concurrencyLimit('leader-election')).toBe(25);
    expect(p.concurrencyLimit('workload-high')).toBe(98);
    expect(p.concurrencyLimit('workload-low')).toBe(245);
    expect(p.concurrencyLimit('catch-all')).toBe(13);
    expect(p.concurrencyLimit('exempt')).toBe(Infinity);
    expect(p.maxSeats('global-default')).toBe(8);
    expect(p.maxSeats('leader-election')).toBe(4);
  });
});

describe('list work estimates', () => {
  const q = (s: string) => new URLSearchParams(s);
  it.each([
    ['a list served from the watch cache', 'list', '', '', 10_000, 10],
    ['a small list', 'list', '', '', 150, 2],
    ['a page from storage', 'list', '', 'limit=100', 10_000, 2],
    ['a page with a selector', 'list', '', 'limit=100&labelSelector=a%3Db', 10_000, 10],
    ['a page at resourceVersion 0', 'list', '', 'limit=100&resourceVersion=0', 350, 4],
    ['a named list', 'list', 'x', '', 10_000, 1],
    ['a watch', 'watch', '', '', 10_000, 1],
    ['a watch with its initial events', 'watch', '', 'sendInitialEvents=true', 250, 3],
  ])('charges %s', (_what, verb, name, query, storedObjects, seats) => {
    expect(listSeats({ verb, name, query: q(query), storedObjects }, 10)).toBe(seats);
  });

  it('never charges past the maximum', () => {
    expect(listSeats({ verb: 'list', name: '', query: q(''), storedObjects: 1e6 }, 8)).toBe(8);
  });
});

describe('shuffle sharding', () => {
  it('deals each flow distinct queues of the deck', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.integer({ min: 1, max: 128 }),
        fc.integer({ min: 1, max: 8 }),
        (hash, deck, hand) => {
          const size = Math.min(hand, deck);
          const cards = dealHand(hash, deck, size);
          expect(cards).toHaveLength(size);
          expect(new Set(cards).size).toBe(size);
          for (const c of cards) expect(c >= 0 && c < deck).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('hashes a flow by its schema and distinguisher, FNV-1a 64', () => {
    // FNV-1a 64 of the bytes 61 00 62.
    expect(hashFlowID('a', 'b').toString(16)).toBe('e5d29919042666b2');
    expect(hashFlowID('a', 'b')).not.toBe(hashFlowID('ab', ''));
  });
});

/** Starts a request; its settlement is kept in `result`. */
function start(qs: QueueSet, flow: bigint, width = 1, wait = 1_000, signal?: AbortSignal) {
  const r: { result?: StartResult } = {};
  void qs.startRequest(flow, width, wait, signal).then((x) => (r.result = x));
  return r;
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('QueueSet', () => {
  it('runs what fits, queues the rest, and dispatches as seats come back', async () => {
    const clock = new FakeClock();
    const qs = new QueueSet(
      { concurrencyLimit: 2, queuing: { queues: 8, handSize: 2, queueLengthLimit: 5 } },
      clock,
    );
    const a = start(qs, 1n);
    const b = start(qs, 1n);
    const c = start(qs, 1n);
    await settle();
    expect(a.result?.dispatched && b.result?.dispatched).toBe(true);
    expect(c.result).toBeUndefined();
    expect(qs.stats()).toMatchObject({ executing: 2, waiting: 1, seatsInUse: 2 });
    if (a.result?.dispatched) a.result.finish();
    await settle();
    expect(c.result).toMatchObject({ dispatched: true, queued: true });
  });

  it('lets a light flow through ahead of a heavy one that filled its queues', async () => {
    const clock = new FakeClock();
    const qs = new QueueSet(
      { concurrencyLimit: 1, queuing: { queues: 64, handSize: 2, queueLengthLimit: 100 } },
      clock,
    );
    const order: string[] = [];
    const track = (name: string, r: { result?: StartResult }) => ({ name, r });
    const running = [track('heavy', start(qs, hashFlowID('global-default', 'heavy')))];
    for (let i = 0; i < 50; i++)
      running.push(track('heavy', start(qs, hashFlowID('global-default', 'heavy'))));
    running.push(track('light', start(qs, hashFlowID('global-default', 'light'))));
    await settle();
    // Finish whatever runs, one at a time, and note who runs next.
    for (let turn = 0; turn < 5; turn++) {
      const now = running.find((x) => x.r.result?.dispatched);
      if (!now || !now.r.result?.dispatched) break;
      order.push(now.name);
      now.r.result.finish();
      running.splice(running.indexOf(now), 1);
      await settle();
    }
    // Not behind the fifty: within the first turns after the one running.
    expect(order.slice(0, 3)).toContain('light');
  });

  it('refuses a request whose queue is full, and one that waited too long', async () => {
    const clock = new FakeClock();
    const qs = new QueueSet(
      { concurrencyLimit: 1, queuing: { queues: 1, handSize: 1, queueLengthLimit: 2 } },
      clock,
    );
    start(qs, 1n);
    const waiting = [start(qs, 1n, 1, 500), start(qs, 1n, 1, 500)];
    const full = start(qs, 1n);
    await settle();
    expect(full.result).toEqual({ dispatched: false, reason: 'queue-full' });
    clock.step(500);
    await settle();
    for (const w of waiting) expect(w.result).toEqual({ dispatched: false, reason: 'time-out' });
    expect(qs.stats()).toMatchObject({ waiting: 0, rejected: 1, timedOut: 2 });
  });

  it('forgets a request whose client leaves while it waits', async () => {
    const clock = new FakeClock();
    const qs = new QueueSet(
      { concurrencyLimit: 1, queuing: { queues: 4, handSize: 1, queueLengthLimit: 5 } },
      clock,
    );
    const running = start(qs, 1n);
    const abort = new AbortController();
    const left = start(qs, 1n, 1, 1_000, abort.signal);
    const next = start(qs, 1n);
    await settle();
    abort.abort();
    await settle();
    expect(left.result).toEqual({ dispatched: false, reason: 'cancelled' });
    if (running.result?.dispatched) running.result.finish();
    await settle();
    expect(next.result?.dispatched).toBe(true);
  });

  it('refuses at once on a level that does not queue', async () => {
    const qs = new QueueSet({ concurrencyLimit: 1 }, new FakeClock());
    expect((await qs.startRequest(1n, 1, 1_000)).dispatched).toBe(true);
    expect(await qs.startRequest(1n, 1, 1_000)).toEqual({
      dispatched: false,
      reason: 'concurrency-limit',
    });
  });

  it('runs a wide request once enough seats are free, and one wider than the level alone', async () => {
    const qs = new QueueSet(
      { concurrencyLimit: 4, queuing: { queues: 4, handSize: 2, queueLengthLimit: 5 } },
      new FakeClock(),
    );
    const narrow = start(qs, 1n, 2);
    const wide = start(qs, 2n, 3);
    await settle();
    expect(wide.result).toBeUndefined();
    if (narrow.result?.dispatched) narrow.result.finish();
    await settle();
    expect(wide.result?.dispatched).toBe(true);
    expect(qs.seatsInUse).toBe(3);
  });

  it('never holds more seats than its limit, and settles every request once (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(
          fc.oneof(
            fc.record({
              op: fc.constant('start' as const),
              flow: fc.integer({ min: 0, max: 5 }),
              width: fc.integer({ min: 1, max: 8 }),
              abort: fc.boolean(),
            }),
            fc.record({ op: fc.constant('finish' as const), i: fc.nat() }),
            fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 400 }) }),
            fc.record({ op: fc.constant('abort' as const), i: fc.nat() }),
          ),
          { maxLength: 60 },
        ),
        async (limit, ops) => {
          const clock = new FakeClock();
          const qs = new QueueSet(
            { concurrencyLimit: limit, queuing: { queues: 8, handSize: 3, queueLengthLimit: 4 } },
            clock,
          );
          const started: {
            settled: number;
            result?: StartResult;
            abort: AbortController;
            finished: boolean;
          }[] = [];
          for (const o of ops) {
            if (o.op === 'start') {
              const s = {
                settled: 0,
                abort: new AbortController(),
                finished: false,
              } as (typeof started)[number];
              started.push(s);
              void qs.startRequest(BigInt(o.flow), o.width, 1_000, s.abort.signal).then((r) => {
                s.settled++;
                s.result = r;
              });
            } else if (o.op === 'finish' && started.length > 0) {
              const s = started[o.i % started.length]!;
              if (s.result?.dispatched && !s.finished) {
                s.finished = true;
                s.result.finish();
              }
            } else if (o.op === 'abort' && started.length > 0) {
              started[o.i % started.length]!.abort.abort();
            } else if (o.op === 'tick') {
              clock.step(o.ms);
            }
            await settle();
            expect(qs.seatsInUse).toBeLessThanOrEqual(limit);
          }
          // Finish everything; whatever waits is dispatched or times out.
          for (
            let round = 0;
            round < 200 &&
            started.some((s) => s.settled === 0 || (s.result?.dispatched && !s.finished));
            round++
          ) {
            for (const s of started) {
              if (s.result?.dispatched && !s.finished) {
                s.finished = true;
                s.result.finish();
              }
            }
            clock.step(1_000);
            await settle();
          }
          for (const s of started) expect(s.settled).toBe(1);
          expect(qs.stats()).toMatchObject({ seatsInUse: 0, waiting: 0, executing: 0 });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('Retry-After', () => {
  it('doubles while a level keeps refusing three requests per second of it, then backs off', () => {
    let now = 100;
    const t = new DroppedRequestsTracker(() => now);
    expect(t.retryAfter('global-default')).toBe(1);
    for (let second = 0; second < 3; second++) {
      for (let i = 0; i < 5; i++) t.recordDroppedRequest('global-default');
      now++;
    }
    t.recordDroppedRequest('global-default');
    expect(t.retryAfter('global-default')).toBe(4);
    expect(t.retryAfter('leader-election')).toBe(1);
    now += 10;
    t.recordDroppedRequest('global-default');
    expect(t.retryAfter('global-default')).toBe(3);
  });
});
