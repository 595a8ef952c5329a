// Reading a watch response: newline-delimited JSON events, one object per line
// as kube-apiserver writes them, decoded the way client-go's
// StreamWatcher does (apimachinery pkg/watch/streamwatcher.go, receive;
// client-go rest/watch/decoder.go, Decode): an undecodable event becomes one
// ERROR event with a 500 Status, and a broken connection simply ends the
// stream, as a probable EOF does there.
import { StringDecoder } from 'node:string_decoder';
import type { Status } from 'kubernetes-types/meta/v1.js';
import {
  FifoBuffer,
  isWatchEventType,
  newGenericServerResponse,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { onAbort } from './abort-listeners.js';
import { cutManagedFieldsFromEvent } from './drop-managed-fields.js';
import type { Exchange } from './transport.js';

// How much of a bad line the error message quotes.
const maxQuotedLine = 256;

// Decoded events held for a consumer before the response is paused, and the
// count below which it reads again.
const highWater = 1024;
const lowWater = 256;

// The Status of the ERROR event that stands for an undecodable event: what
// client-go's clientErrorReporter (apimachinery pkg/api/errors/errors.go,
// NewClientErrorReporter, AsObject) makes, a generic 500 with an extra
// `ClientWatchDecoding` cause.
function watchDecodingStatus(verb: string, problem: string): Status {
  const message = `unable to decode an event from the watch stream: ${problem}`;
  const status = newGenericServerResponse({
    code: 500,
    verb,
    serverMessage: message,
    isUnexpectedResponse: true,
  }).toStatus();
  const causes = status.details?.causes ?? [];
  status.details = {
    ...status.details,
    causes: [...causes, { reason: 'ClientWatchDecoding', message }],
  };
  return status;
}

function quoteLine(line: string): string {
  const shown = line.length > maxQuotedLine ? `${line.slice(0, maxQuotedLine)}...` : line;
  return JSON.stringify(shown);
}

function parseProblem(line: string): { problem: string } {
  try {
    JSON.parse(line);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { problem: `${why} in line ${quoteLine(line)}` };
  }
  // Only the cut text failed: the scanner is wrong, not the line.
  return { problem: `unable to drop managedFields from line ${quoteLine(line)}` };
}

/**
 * Decodes one line into an event, or describes what is wrong with it. With
 * `dropManagedFields`, the object's `metadata.managedFields` is cut from the
 * text first, where the scanner can be sure of it.
 */
export function decodeWatchLine<T>(
  line: string,
  dropManagedFields = false,
): WatchEvent<T> | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(dropManagedFields ? cutManagedFieldsFromEvent(line) : line);
  } catch {
    // What is wrong is told of the text as the server sent it.
    return parseProblem(line);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: `expected a JSON object, got line ${quoteLine(line)}` };
  }
  const { type, object } = value as Record<string, unknown>;
  if (!isWatchEventType(type)) {
    return { problem: `got invalid watch event type: ${String(type)} in line ${quoteLine(line)}` };
  }
  if (typeof object !== 'object' || object === null || Array.isArray(object)) {
    return { problem: `the ${type} event has no object in line ${quoteLine(line)}` };
  }
  // client-go decodes an ERROR event's object as a Status and fails the event
  // otherwise; checking here keeps `StatusError.fromStatus(event.object)` sound.
  if (type === 'ERROR' && (object as Record<string, unknown>).kind !== 'Status') {
    return { problem: `the ERROR event does not carry a Status in line ${quoteLine(line)}` };
  }
  return { type, object } as WatchEvent<T>;
}

/**
 * The events of a watch response (status 200, headers received). Iterating
 * never throws: an ERROR event, sent by the server or made for an undecodable
 * line, is the last; the iteration also ends when the server closes the
 * stream, the connection breaks or `signal` aborts; and leaving the loop early
 * destroys the request, closing its connection.
 */
export function watchEvents<T>(
  exchange: Exchange,
  verb: string,
  signal: AbortSignal | undefined,
  dropManagedFields = false,
): AsyncIterable<WatchEvent<T>> {
  const { req, res } = exchange;
  const close = () => {
    res.destroy();
    req.destroy();
  };
  // Listen now, not when iteration starts: an abort before the first `next()`
  // must still close the connection.
  const unsubscribe = onAbort(signal, close);

  // A hand-written iterator rather than an async generator: `next()` answers
  // from the decoded events at hand with one settled promise, where every
  // `yield` of an async generator costs several.
  const decoder = new StringDecoder('utf8');
  const ready = new FifoBuffer<WatchEvent<T>>();
  let pending = '';
  let finished = false;
  let paused = false;
  let waiter: ((result: IteratorResult<WatchEvent<T>>) => void) | undefined;

  const deliver = (event: WatchEvent<T>): void => {
    if (waiter !== undefined) {
      const wake = waiter;
      waiter = undefined;
      wake({ value: event, done: false });
    } else {
      ready.push(event);
    }
  };
  // No more events: the connection closes however the stream ended.
  const finish = (): void => {
    if (finished) return;
    finished = true;
    res.off('data', onData);
    unsubscribe();
    close();
    if (waiter !== undefined && ready.length === 0) {
      const wake = waiter;
      waiter = undefined;
      wake({ value: undefined, done: true });
    }
  };
  const onData = (chunk: Buffer): void => {
    if (finished) return;
    // Look for a newline only in the new text: a large object arriving in
    // many chunks is then scanned once, not once per chunk.
    const text = decoder.write(chunk);
    let newline = text.indexOf('\n');
    if (newline >= 0) newline += pending.length;
    pending += text;
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
      if (line.trim() === '') continue;
      const event = decodeWatchLine<T>(line, dropManagedFields);
      if ('problem' in event) {
        deliver({ type: 'ERROR', object: watchDecodingStatus(verb, event.problem) });
        finish();
        return;
      }
      deliver(event);
      // An ERROR event is the last.
      if (event.type === 'ERROR') {
        finish();
        return;
      }
    }
    // Let the consumer catch up before reading more.
    if (ready.length >= highWater && !paused) {
      paused = true;
      res.pause();
    }
  };
  const onEnd = (): void => {
    if (finished) return;
    // The server ended the stream cleanly. A last event without its newline
    // still counts; a cut-off one is an unexpected EOF, which ends quietly.
    pending += decoder.end();
    if (pending.trim() !== '') {
      const event = decodeWatchLine<T>(pending, dropManagedFields);
      if (!('problem' in event)) deliver(event);
    }
    finish();
  };

  const iterator: AsyncIterator<WatchEvent<T>> = {
    next() {
      const event = ready.shift();
      if (event !== undefined) {
        if (paused && !finished && ready.length <= lowWater) {
          paused = false;
          res.resume();
        }
        return Promise.resolve({ value: event, done: false });
      }
      if (finished) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiter = resolve));
    },
    return() {
      // Leaving the loop early closes the connection.
      ready.clear();
      finish();
      return Promise.resolve({ value: undefined, done: true });
    },
  };

  let started = false;
  return {
    [Symbol.asyncIterator]() {
      if (started) throw new Error('a watch can be iterated only once');
      started = true;
      // Closed before iterating (an abort): nothing to read.
      if (res.destroyed) {
        finish();
        return iterator;
      }
      res.on('data', onData);
      res.once('end', onEnd);
      // A reset, an abort: the stream is over, and there is no more to say.
      res.once('error', finish);
      res.once('close', () => {
        if (!res.readableEnded) finish();
      });
      return iterator;
    },
  };
}
