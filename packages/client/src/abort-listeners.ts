// One 'abort' listener per caller's signal, however many requests wait on it:
// the part of Go's context package (context.go, propagateCancel and
// cancelCtx.children) that lets any number of requests hang off one context.
// A controller hands its run signal to every request, as Go code passes one
// context to every call; a listener per request would pile up on that
// long-lived signal (Node warns past ten: MaxListenersExceededWarning). So
// requests subscribe here, and this module keeps a single listener on the
// signal while anyone is subscribed.

interface Subscribers {
  readonly callbacks: Set<{ fn: () => void }>;
  readonly listener: () => void;
}

const bySignal = new WeakMap<AbortSignal, Subscribers>();

/**
 * Calls `fn` once when `signal` aborts (at once if it has already), and
 * returns the function that cancels the subscription; call it when the work
 * is done, so that nothing is kept alive by a signal that outlives it. Only
 * the first subscriber of a signal adds an event listener to it, and the
 * last to leave removes it.
 */
export function onAbort(signal: AbortSignal | undefined, fn: () => void): () => void {
  if (signal === undefined) return noop;
  if (signal.aborted) {
    fn();
    return noop;
  }
  let subscribers = bySignal.get(signal);
  if (subscribers === undefined) {
    const callbacks = new Set<{ fn: () => void }>();
    const listener = () => {
      bySignal.delete(signal);
      for (const c of [...callbacks]) {
        try {
          c.fn();
        } catch {
          // One subscriber's failure must not keep the others from hearing.
        }
      }
      callbacks.clear();
    };
    subscribers = { callbacks, listener };
    bySignal.set(signal, subscribers);
    signal.addEventListener('abort', listener, { once: true });
  }
  const entry = { fn };
  const own = subscribers;
  own.callbacks.add(entry);
  return () => {
    if (!own.callbacks.delete(entry) || own.callbacks.size > 0) return;
    if (bySignal.get(signal) === own) bySignal.delete(signal);
    signal.removeEventListener('abort', own.listener);
  };
}

function noop(): void {}
