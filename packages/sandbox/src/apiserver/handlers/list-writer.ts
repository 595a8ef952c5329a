// Long lists written a slice at a time. kube-apiserver encodes a list on the
// request's own goroutine (handlers/responsewriters/writers.go,
// SerializeObject, streaming the items of a large list); in a
// single-threaded server one list of thousands of objects would hold every
// other client for as long as it takes to convert and encode them. Here the
// conversion (a Table's rows, PartialObjectMetadata) and the encoding run in
// slices of a few milliseconds, the event loop serves other requests
// between them, and a client that does not read holds back the next slice
// rather than growing the server's memory. The bytes written are the ones
// the whole answer, encoded at once, would have.
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { stringify as stringifyYaml } from 'yaml';
import type { ListParts } from '../response.js';
import type { Encoding } from './writers.js';

/** Lists up to this long are encoded at once, as any other answer. */
export const sliceListsLongerThan = 256;

/** How long one slice may run before the next waits its turn, in ms. */
const sliceBudget = 4;

/** How many items are converted at a time (a Table's printer runs per run). */
const run = 32;

const yamlOptions = { sortMapEntries: true, indentSeq: false } as const;

/** The part of a response the writer uses. */
export type SlicedResponse = Pick<
  ServerResponse,
  'writeHead' | 'write' | 'end' | 'on' | 'off' | 'destroyed'
>;

/**
 * Writes `parts` as a 200 answer in `enc`, slice by slice, and resolves once
 * the last byte is handed to the socket (or the client has gone).
 * `sliceBudgetMs` is how long a slice runs before it yields.
 */
export async function sendListInSlices(
  res: SlicedResponse,
  parts: ListParts,
  enc: Encoding,
  { sliceBudgetMs = sliceBudget }: { sliceBudgetMs?: number } = {},
): Promise<void> {
  const format =
    enc.contentType === 'application/yaml' ? yamlFormat(parts) : jsonFormat(parts, enc);
  res.writeHead(200, { 'Content-Type': enc.contentType, 'Cache-Control': 'no-cache, private' });
  let chunk = format.head;
  let sliceStart = performance.now();
  for (let i = 0; i < parts.items.length; i += run) {
    const elements = parts.convert(parts.items.slice(i, i + run));
    for (let j = 0; j < elements.length; j++) chunk += format.element(elements[j], i + j === 0);
    if (performance.now() - sliceStart < sliceBudgetMs) continue;
    if (!(await flush(res, chunk))) return;
    chunk = '';
    await nextTurn();
    if (res.destroyed) return;
    sliceStart = performance.now();
  }
  res.end(chunk + format.tail);
}

/** Writes `chunk`; waits while the client is behind. False once the client has gone. */
async function flush(res: SlicedResponse, chunk: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(chunk)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
  return !res.destroyed;
}

interface Format {
  head: string;
  element(value: unknown, first: boolean): string;
  tail: string;
}

// JSON.stringify's own layout: the envelope's text up to its closing brace,
// then the array, element by element; indented output indents each element
// as deep as it sits.
function jsonFormat(parts: ListParts, enc: Encoding): Format {
  if (!enc.pretty) {
    const envelope = JSON.stringify(parts.envelope);
    return {
      head: `${envelope.slice(0, -1)}${envelope === '{}' ? '' : ','}"${parts.key}":[`,
      element: (value, first) => (first ? '' : ',') + JSON.stringify(value),
      tail: ']}',
    };
  }
  const envelope = JSON.stringify(parts.envelope, null, 2);
  const open = envelope === '{}' ? '{' : `${envelope.slice(0, -2)},`;
  return {
    head: `${open}\n  "${parts.key}": [\n`,
    element: (value, first) =>
      `${first ? '' : ',\n'}    ${JSON.stringify(value, null, 2).replace(/\n/g, '\n    ')}`,
    tail: '\n  ]\n}\n',
  };
}

// sigs.k8s.io/yaml's layout as the one-shot writer makes it: keys sorted, so
// the array sits among the envelope's keys, and sequences not indented.
function yamlFormat(parts: ListParts): Format {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parts.envelope)) (k < parts.key ? before : after)[k] = v;
  const text = (o: Record<string, unknown>) =>
    Object.keys(o).length === 0 ? '' : stringifyYaml(o, yamlOptions);
  return {
    head: `${text(before)}${parts.key}:\n`,
    element: (value) => stringifyYaml([value], yamlOptions),
    tail: text(after),
  };
}
