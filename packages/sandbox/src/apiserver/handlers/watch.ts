// watch: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go
// (serveWatch, WatchServer.HandleHTTP: one JSON event per line, each event
// embedded as the list's items would be, flushed when the channel is empty),
// with the fault lab's dropped and hung watches.
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { WatchEvent } from '@kcm-ts/apimachinery';
import type { FaultLab } from '../../lab/faults.js';
import type { FlushRounds } from '../flush-rounds.js';
import type { NegotiatedOutput } from '../negotiation.js';
import { transformResponse, type TransformContext } from '../response.js';
import { encodeOnce } from '../storage/caching-object.js';
import type { Watch } from '../storage/watch.js';
import { listOptions, type RequestScope } from './rest.js';

/** The most events one write of a stream carries. */
const maxEventsPerWrite = 500;

/** What the watch streams of one server share. */
export interface WatchServing {
  /** The rounds in which streams are written. */
  rounds: FlushRounds;
  /** Bytes a watch may have unread before the watcher is cut off. */
  bufferBytes: number;
  faults?: FaultLab;
}

/** GET of a collection with `watch=true`. */
export async function watchResource(scope: RequestScope, serving: WatchServing): Promise<void> {
  const { registry, info, namespace } = scope;
  const opts = listOptions(scope.query);
  const selectors = await registry.compileSelectors(info, opts, nextTurn);
  const watch = registry.watch(info, namespace, opts, { shared: true, selectors });
  return serveWatch(scope, watch, serving);
}

async function serveWatch(scope: RequestScope, watch: Watch, serving: WatchServing): Promise<void> {
  const { req, res, info, output, ctx } = scope;
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Transfer-Encoding': 'chunked',
    'Cache-Control': 'no-cache, private',
  });
  // Headers go out at once: clients wait for them before they can stop a watch.
  res.flushHeaders();
  // In Node, the request's 'close' fires once its body is read; the response's marks the client leaving.
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  res.on('close', () => watch.stop());
  req.resume();
  // The fault lab can drop this watch (end the stream at once) or hang it
  // (send nothing, and stay open past the timeout until dropped).
  const tracked = serving.faults?.openWatch(info.resource, () => {
    watch.stop();
    if (!res.writableEnded) res.end();
  });
  try {
    await streamWatch(
      watch,
      res,
      { output, ctx, now: () => scope.registry.clock.now() },
      serving,
      tracked,
    );
    if (tracked?.hung() && !res.writableEnded && !res.destroyed) await closed;
  } finally {
    tracked?.close();
  }
  if (!res.writableEnded) res.end();
}

/**
 * Writes a watch's events as they come, one line each, all the events
 * queued by then in one write (Go's watch server flushes only when its
 * channel is empty), each line made once for every watcher of the same
 * form. Resolves when the watch has ended and its queue is written.
 */
function streamWatch(
  watch: Watch,
  res: ServerResponse,
  form: { output: NegotiatedOutput; ctx: TransformContext; now: () => number },
  serving: WatchServing,
  tracked: { hung(): boolean } | undefined,
): Promise<void> {
  const { output, ctx } = form;
  const line = eventLine(output, ctx);
  return new Promise<void>((resolve) => {
    let scheduled = false;
    let done = false;
    const pump = (): void => {
      scheduled = false;
      if (done) return;
      // A burst (the initial events of a large watch) goes out a batch per
      // round, so that one stream cannot hold the server for all of it.
      const events = watch.take(maxEventsPerWrite);
      if (res.destroyed || res.writableEnded) {
        done = true;
        watch.stop();
        return resolve();
      }
      if (events.length > 0 && !tracked?.hung()) {
        ctx.now = form.now();
        const lines = events.map(line);
        res.write(lines.length === 1 ? (lines[0] as Uint8Array) : Buffer.concat(lines));
        // A watcher that stops reading is cut off once this much waits for
        // it, as the watch cache closes a watcher whose buffer is full
        // (cacher.go, "Forcing watcher close due to unresponsiveness").
        if (res.writableLength > serving.bufferBytes) {
          done = true;
          watch.stop();
          res.destroy();
          return resolve();
        }
      }
      if (watch.pending > 0) {
        scheduled = true;
        serving.rounds.add(pump);
      } else if (watch.stopped) {
        done = true;
        resolve();
      }
    };
    // Events queued in one turn of the event loop (by every write it
    // served) go out together, after it.
    // An ended watch is finished at once: nothing more will join the batch.
    // Otherwise its events go out in the next round of writes.
    watch.onReady(() => {
      if (watch.stopped) return pump();
      if (scheduled) return;
      scheduled = true;
      serving.rounds.add(pump);
    });
  });
}

/**
 * How one event becomes a line of the stream. watchEmbeddedEncoder: each
 * event's object is transformed as the list's items would be; one that
 * cannot be (a list form asked of one object) goes out as it is. Tables are
 * made for object events only, and made anew (their ages move); every other
 * form of a shared object is encoded once for all watchers.
 */
function eventLine(
  output: NegotiatedOutput,
  ctx: TransformContext,
): (event: WatchEvent<unknown>) => Uint8Array {
  const convert = output.convert;
  const embedded = (event: WatchEvent<unknown>): WatchEvent<unknown> => {
    if (event.type === 'ERROR' || convert === undefined) return event;
    if (convert.kind === 'Table' && event.type === 'BOOKMARK') return event;
    try {
      return { type: event.type, object: transformResponse(event.object, convert, ctx) };
    } catch {
      return event;
    }
  };
  const encode = (event: WatchEvent<unknown>): string => `${JSON.stringify(embedded(event))}\n`;
  const form = convert ? `${convert.kind}/${convert.version}` : '';
  return (event) => {
    const shared =
      event.type !== 'ERROR' &&
      event.type !== 'BOOKMARK' &&
      convert?.kind !== 'Table' &&
      typeof event.object === 'object' &&
      event.object !== null &&
      Object.isFrozen(event.object);
    if (!shared) return Buffer.from(encode(event));
    return encodeOnce(event.object as object, `${event.type} ${form}`, () => encode(event));
  };
}
