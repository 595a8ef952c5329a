// Reading decoded JSON objects whose shape is not known yet, as Go's
// k8s.io/apimachinery/pkg/apis/meta/v1/unstructured helpers do: one home for
// the record type and its two guards that the registry, storage and
// handlers share.

/** A decoded JSON object. */
export type Obj = Record<string, unknown>;

/** Whether `v` is a JSON object (not null, not an array). */
export const isObj = (v: unknown): v is Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `v` when it is a JSON object, otherwise an empty one. */
export const obj = (v: unknown): Obj => (isObj(v) ? v : {});
