// The client-go feature gates that choose how informers queue and process
// changes: client-go features/known_features.go (InOrderInformers,
// AtomicFIFO, InOrderInformersBatchProcess).

/**
 * client-go's informer feature gates, by their Go names. Unset ones take
 * {@link defaultInformerFeatureGates}. client-go reads them from the
 * environment once per process; here each informer (or factory) takes its
 * own.
 *
 * @category Feature gates
 */
export interface InformerFeatureGates {
  /**
   * Deliver every change in order through a {@link RealFIFO}; off, merge
   * them per object in a {@link DeltaFIFO} as client-go did before 1.33.
   * GA and locked on in client-go 1.36.
   */
  InOrderInformers?: boolean;
  /**
   * With `InOrderInformers`: queue a relist as one `ReplacedAll` change, a
   * resync as one `SyncAll`, and bookmarks, so the cache is replaced at once
   * and knows the resourceVersion it has reached. Off, a relist is a
   * `Deleted` tombstone per vanished object then a `Replaced` per listed one.
   * Beta, on, since client-go 1.36.
   */
  AtomicFIFO?: boolean;
  /**
   * With `InOrderInformers`: take up to 1000 leading changes of distinct
   * objects at once, apply them all to the cache, then tell the handlers.
   * Beta, on, since client-go 1.35.
   */
  InOrderInformersBatchProcess?: boolean;
}

/**
 * The defaults of client-go 1.36 (`k8s.io/client-go` v0.36): all on.
 *
 * @category Feature gates
 */
export const defaultInformerFeatureGates: Readonly<Required<InformerFeatureGates>> = Object.freeze({
  InOrderInformers: true,
  AtomicFIFO: true,
  InOrderInformersBatchProcess: true,
});

/** The gates in force: the given ones over the defaults. */
export function resolveFeatureGates(
  gates: InformerFeatureGates | undefined,
): Readonly<Required<InformerFeatureGates>> {
  const d = defaultInformerFeatureGates;
  if (gates === undefined) return d;
  return {
    InOrderInformers: gates.InOrderInformers ?? d.InOrderInformers,
    AtomicFIFO: gates.AtomicFIFO ?? d.AtomicFIFO,
    InOrderInformersBatchProcess:
      gates.InOrderInformersBatchProcess ?? d.InOrderInformersBatchProcess,
  };
}
