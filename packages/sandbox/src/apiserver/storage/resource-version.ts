// resourceVersions as the storage reads them: staging/src/k8s.io/apiserver/
// pkg/storage/api_object_versioner.go (ParseResourceVersion), whose
// revisions are whole numbers.
import { newBadRequest } from '@kcm-ts/apimachinery';

/** The revision a resourceVersion names; 400 BadRequest if it names none. */
export function parseResourceVersion(value: string, what: string): number {
  if (!/^\d+$/.test(value)) {
    throw newBadRequest(`${what}: invalid resource version: ${JSON.stringify(value)}`);
  }
  return Number(value);
}
