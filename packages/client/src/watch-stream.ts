// Reading a watch response: newline-delimited JSON events, one object per line
// as kube-apiserver writes them, decoded the way client-go's
// StreamWatcher does (apimachinery pkg/watch/streamwatcher.go, receive;
// client-go rest/watch/decoder.go, Decode): an undecodable event becomes one
// ERROR event with a 500 Status, and a broken connection simply ends the
// stream, as a probable EOF does there.
import { StringDecoder } from 'node:string_decoder';
import type { Status } from 'kubernetes-types/meta/v1.js';
import { isWatchEventType, newGenericServerResponse, type WatchEvent } from '@kcm-ts/apimachinery';
import { onAbort } from './abort-listeners.js';
import type { Exchange } from './transport.js';

// How much of a bad line the error message quotes.
const maxQuotedLine = 256;

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

/** Decodes one line into an event, or describes what is wrong with it. */
export function decodeWatchLine<T>(line: string): WatchEvent<T> | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { problem: `${why} in line ${quoteLine(line)}` };
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
): AsyncIterable<WatchEvent<T>> {
  const { req, res } = exchange;
  const close = () => {
    res.destroy();
    req.destroy();
  };
  // Listen now, not when iteration starts: an abort before the first `next()`
  // must still close the connection.
  const unsubscribe = onAbort(signal, close);

  async function* events(): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const decoder = new StringDecoder('utf8');
    let pending = '';
    try {
      try {
        for await (const chunk of res) {
          // Look for a newline only in the new text: a large object arriving
          // in many chunks is then scanned once, not once per chunk.
          const text = decoder.write(chunk as Buffer);
          let newline = text.indexOf('\n');
          if (newline >= 0) newline += pending.length;
          pending += text;
          while (newline >= 0) {
            const line = pending.slice(0, newline);
            pending = pending.slice(newline + 1);
            newline = pending.indexOf('\n');
            if (line.trim() === '') continue;
            const event = decodeWatchLine<T>(line);
            if ('problem' in event) {
              yield { type: 'ERROR', object: watchDecodingStatus(verb, event.problem) };
              return;
            }
            yield event;
            if (event.type === 'ERROR') return;
          }
        }
      } catch {
        // A reset, an abort: the stream is over, and there is no more to say.
        return;
      }
      // The server ended the stream cleanly. A last event without its newline
      // still counts; a cut-off one is an unexpected EOF, which ends quietly.
      pending += decoder.end();
      if (pending.trim() !== '') {
        const event = decodeWatchLine<T>(pending);
        if (!('problem' in event)) yield event;
      }
    } finally {
      unsubscribe();
      close();
    }
  }

  let started = false;
  return {
    [Symbol.asyncIterator]() {
      if (started) throw new Error('a watch can be iterated only once');
      started = true;
      return events();
    },
  };
}
