// How many seats a request takes while it runs: one, except for lists (and
// watches that ask for their initial events), which take one per hundred
// objects they will go through, up to the level's maximum
// (staging/src/k8s.io/apiserver/pkg/util/flowcontrol/request/
// list_work_estimator.go, seatsBasedOnObjectCount, with config.go's
// defaults). A list of one named object, or one served from the watch cache
// with a limit, costs what it reads.

/** config.go: the seats of a request are at least 1 and at most 10. */
export const minimumSeats = 1;
export const maximumSeats = 10;
const objectsPerSeat = 100;

/** What the estimate reads of a list or watch. */
export interface ListEstimateInput {
  verb: string;
  /** A name in the path (a list whose field selector names one object is not one). */
  name: string;
  query: URLSearchParams;
  /** How many objects of the resource are stored. */
  storedObjects: number;
}

/** The seats a list or watch occupies, between {@link minimumSeats} and `maxSeats`. */
export function listSeats(input: ListEstimateInput, maxSeats: number): number {
  const { verb, query } = input;
  if (verb === 'watch' && !/^(1|t|true)$/i.test(query.get('sendInitialEvents') ?? '')) {
    return minimumSeats;
  }
  const numStored = input.storedObjects;
  const limitParam = Number(query.get('limit') ?? '0');
  const limit =
    Number.isInteger(limitParam) && limitParam > 0 && limitParam < numStored
      ? limitParam
      : numStored;
  // Served from the watch cache: watches, resourceVersion "0", and lists
  // that are not pages; pages go to storage (storage/get-list.ts).
  const rv = query.get('resourceVersion') ?? '';
  const paged = limit < numStored || (query.get('continue') ?? '') !== '';
  const fromCache = verb === 'watch' || rv === '0' || !paged;
  const selectors =
    (query.get('labelSelector') ?? '') !== '' || (query.get('fieldSelector') ?? '') !== '';
  let objects: number;
  if (input.name !== '') objects = 1;
  else if (fromCache) objects = numStored;
  else if (selectors) objects = numStored + limit;
  else objects = 2 * limit;
  const seats = Math.ceil(objects / objectsPerSeat);
  return Math.max(minimumSeats, Math.min(seats, maxSeats));
}
