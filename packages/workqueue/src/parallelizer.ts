// Split work into pieces and run them on a few workers:
// client-go util/workqueue/parallelizer.go (`ParallelizeUntil`).

/**
 * Options for {@link parallelizeUntil}.
 *
 * @category Parallelizer
 */
export interface ParallelizeOptions {
  /** Pieces handed to a worker at a time (Go's `WithChunkSize`); values below 1 mean 1. */
  chunkSize?: number;
}

/**
 * Runs `doWorkPiece(0 .. pieces-1)` on at most `workers` concurrent async
 * workers and resolves when all of them have stopped. Each worker takes
 * `chunkSize` consecutive pieces at a time. Before every piece a worker checks
 * `signal`: once it has aborted, no new piece starts.
 *
 * If a piece throws, no further pieces start; the first error is rethrown
 * once the pieces already running have finished (Go's version crashes instead).
 *
 * @category Parallelizer
 */
export async function parallelizeUntil(
  signal: AbortSignal | undefined,
  workers: number,
  pieces: number,
  doWorkPiece: (piece: number) => void | Promise<void>,
  options: ParallelizeOptions = {},
): Promise<void> {
  if (!(pieces > 0) || !(workers > 0)) return;
  const requested = Math.floor(options.chunkSize ?? 1);
  const chunkSize = requested >= 1 ? requested : 1;
  const chunks = Math.ceil(pieces / chunkSize);
  let nextChunk = 0;
  let failure: { error: unknown } | undefined;

  const worker = async (): Promise<void> => {
    while (nextChunk < chunks) {
      const chunk = nextChunk++;
      const end = Math.min(pieces, (chunk + 1) * chunkSize);
      for (let piece = chunk * chunkSize; piece < end; piece++) {
        if (signal?.aborted || failure) return;
        try {
          await doWorkPiece(piece);
        } catch (error) {
          failure ??= { error };
          return;
        }
      }
    }
  };

  await Promise.all(Array.from({ length: Math.min(workers, chunks) }, worker));
  if (failure) throw failure.error;
}
