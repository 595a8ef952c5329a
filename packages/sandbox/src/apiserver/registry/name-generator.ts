// Names for objects created with `generateName`: the simple name generator
// of staging/src/k8s.io/apiserver/pkg/storage/names/generate.go
// (GenerateName), with the alphabet of pkg/util/rand/rand.go (String): no
// vowels, no look-alikes.
const alphanums = 'bcdfghjklmnpqrstvwxz2456789';
const randomLength = 5;
const maxGeneratedNameLength = 63 - randomLength;

/** `prefix` (cut to fit a 63-character name) followed by five random characters. */
export function generateName(prefix: string, random: () => number): string {
  let suffix = '';
  for (let i = 0; i < randomLength; i++)
    suffix += alphanums[Math.floor(random() * alphanums.length)] ?? 'b';
  return prefix.slice(0, maxGeneratedNameLength) + suffix;
}
