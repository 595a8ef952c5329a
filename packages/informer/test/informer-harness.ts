// A SharedIndexInformer over a FakeSource on a FakeClock, and a handler that
// records what it is told, for the shared informer and controller suites.
import { FakeClock, isDeletedFinalStateUnknown } from '@kcm-ts/apimachinery';
import { expect } from 'vitest';
import {
  SharedIndexInformer,
  type ResourceEventHandler,
  type SharedIndexInformerOptions,
} from '../src/index.js';
import { FakeSource, type SourceObj } from './fake-source.js';
import { flush } from './helpers.js';

/** A handler recording each call as `add a=1 initial`, `update a=1->2`, `delete a`. */
export class Recorder implements ResourceEventHandler<SourceObj> {
  readonly events: string[] = [];

  onAdd(obj: SourceObj, isInInitialList: boolean): void {
    this.events.push(`add ${show(obj)}${isInInitialList ? ' initial' : ''}`);
  }

  onUpdate(oldObj: SourceObj, newObj: SourceObj): void {
    this.events.push(`update ${oldObj.metadata.name}=${String(oldObj.val)}->${String(newObj.val)}`);
  }

  onDelete(obj: SourceObj | { key: string; obj: SourceObj | undefined }): void {
    if (isDeletedFinalStateUnknown(obj)) this.events.push(`delete ${obj.key} tombstone`);
    else this.events.push(`delete ${obj.metadata.name}`);
  }

  /** The events recorded since the last call. */
  take(): string[] {
    return this.events.splice(0);
  }
}

const show = (o: SourceObj): string => `${o.metadata.name}=${String(o.val)}`;

export interface InformerHarness {
  source: FakeSource;
  clock: FakeClock;
  informer: SharedIndexInformer<SourceObj>;
  errors: unknown[];
  controller: AbortController;
  /** Runs the informer (once). */
  run(): Promise<void>;
  done: Promise<void> | undefined;
}

const running: InformerHarness[] = [];

/** Builds an informer over a fresh FakeSource; `setup` fills the source first. */
export function harness(
  setup: (source: FakeSource) => void = () => {},
  options: SharedIndexInformerOptions<SourceObj> = {},
): InformerHarness {
  const source = new FakeSource();
  setup(source);
  const clock = new FakeClock();
  const informer = new SharedIndexInformer<SourceObj>(source, {
    clock,
    random: () => 0,
    objectDescription: 'testobjs',
    ...options,
  });
  const errors: unknown[] = [];
  informer.setWatchErrorHandler((_r, err) => errors.push(err));
  const controller = new AbortController();
  const h: InformerHarness = {
    source,
    clock,
    informer,
    errors,
    controller,
    done: undefined,
    run() {
      h.done ??= informer.run(controller.signal);
      return h.done;
    },
  };
  running.push(h);
  return h;
}

/** Stops every harness started by the test. */
export async function stopAll(): Promise<void> {
  for (const h of running.splice(0)) {
    h.controller.abort();
    await h.done;
  }
}

/** Stops `h` and checks it left no timer and no watch behind. */
export async function stopClean(h: InformerHarness): Promise<void> {
  h.controller.abort();
  await h.done;
  await flush();
  expect(h.informer.isStopped()).toBe(true);
  expect(h.clock.hasWaiters()).toBe(false);
  expect(h.source.openWatches()).toHaveLength(0);
}

/** Lets the event loop run until `cond` holds; fails after many turns. */
export async function until(cond: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    await flush();
  }
  throw new Error(`timed out waiting for ${what}`);
}
