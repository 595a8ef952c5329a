// Shuffle sharding: each flow is dealt a hand of a few queues out of many,
// from a hash of its identity, so that two heavy flows rarely share all
// their queues (staging/src/k8s.io/apiserver/pkg/util/shufflesharding/
// shufflesharding.go, Dealer.Deal), and the hash of a flow
// (apf_controller.go, hashFlowID: FNV-1a 64 of the schema's name, a zero
// byte and the distinguisher).

const fnvOffset = 0xcbf29ce484222325n;
const fnvPrime = 0x100000001b3n;
const mask64 = (1n << 64n) - 1n;

/** FNV-1a, 64 bits, of the UTF-8 bytes of `schema`, a zero byte, and `distinguisher`. */
export function hashFlowID(schema: string, distinguisher: string): bigint {
  let h = fnvOffset;
  const bytes = new TextEncoder().encode(`${schema}\u0000${distinguisher}`);
  for (const b of bytes) h = ((h ^ BigInt(b)) * fnvPrime) & mask64;
  return h;
}

/**
 * The `handSize` distinct queue indexes below `deckSize` that `hash` deals:
 * the hash read as digits of a mixed radix, each digit a pick among the
 * cards not dealt yet.
 */
export function dealHand(hash: bigint, deckSize: number, handSize: number): number[] {
  if (handSize > deckSize) throw new RangeError(`hand of ${handSize} from a deck of ${deckSize}`);
  const remainders: number[] = [];
  let value = hash;
  for (let i = 0; i < handSize; i++) {
    const radix = BigInt(deckSize - i);
    remainders.push(Number(value % radix));
    value /= radix;
  }
  return remainders.map((first, i) => {
    let card = first;
    for (let j = i; j > 0; j--) if (card >= (remainders[j - 1] ?? 0)) card++;
    return card;
  });
}
