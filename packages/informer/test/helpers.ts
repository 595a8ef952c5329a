// Shared test doubles for the informer suites.
import type { KeyListerGetter } from '../src/index.js';

/** A test object in the shape of client-go's testFifoObject: a name and a value. */
export interface TestObj {
  metadata: { name: string; namespace?: string };
  val: unknown;
}

/** Builds a {@link TestObj}, like Go's mkFifoObj. */
export function mk(name: string, val: unknown): TestObj {
  return { metadata: { name }, val };
}

/** A KeyListerGetter over a fixed list of objects, like Go's literalListerGetter. */
export function literalListerGetter(list: () => TestObj[]): KeyListerGetter<TestObj> {
  return {
    listKeys: () => list().map((o) => o.metadata.name),
    getByKey: (key) => list().find((o) => o.metadata.name === key),
  };
}

/** Lets every queued promise callback, and anything they queue in turn, run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
