// The subresources with storage of their own: scale (pkg/registry/apps/
// deployment/storage/storage.go, ScaleREST, and its ReplicaSet and
// StatefulSet twins), pods/binding (pkg/registry/core/pod/storage/
// storage.go, BindingREST), namespaces/finalize (pkg/registry/core/
// namespace/storage/storage.go, FinalizeREST), and pods/log with the
// streaming subresources the sandbox has no processes for
// (pkg/registry/core/pod/rest/log.go, subresources.go).
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerLogs } from '../../node/container-logs.js';
import { noProcesses, servePodLog } from './pod-logs.js';
import {
  decodeObjectBody,
  decodePatch,
  patchObject,
  readBody,
  validateFields,
  verbNotAllowed,
  writeOptions,
  type ObjectScope,
} from './rest.js';
import { send } from './writers.js';
import { isObj } from '../unstructured.js';

/** The subresources served here, by name. */
const handlers: Record<string, (scope: ObjectScope) => Promise<void> | void> = {
  scale: serveScale,
  binding: serveBinding,
  eviction: serveEviction,
  finalize: serveFinalize,
  token: serveToken,
};

/**
 * Serves `scope` if its subresource has a handler of its own here; false
 * for the object itself and for `status`, which the verb handlers serve.
 */
export async function serveSubresource(scope: ObjectScope): Promise<boolean> {
  const handler = scope.subresource === undefined ? undefined : handlers[scope.subresource];
  if (!handler) return false;
  await handler(scope);
  return true;
}

async function serveScale(scope: ObjectScope): Promise<void> {
  const { req, res, query, info, registry, namespace, name } = scope;
  if (req.method === 'GET') return scope.reply(200, registry.getScale(info, namespace, name));
  const buf = await readBody(req);
  if (req.method === 'PUT') {
    const body = decodeObjectBody(req, buf, { ...info, kind: 'Scale' });
    validateFields(res, query, 'autoscaling/v1', 'Scale', body);
    return scope.reply(200, registry.updateScale(info, namespace, name, body, writeOptions(query)));
  }
  if (req.method === 'PATCH') {
    const patch = decodePatch(req, buf, query);
    validateFields(res, query, 'autoscaling/v1', 'Scale', patchObject(patch), { patch: true });
    return scope.reply(200, registry.patchScale(info, namespace, name, patch, writeOptions(query)));
  }
  throw verbNotAllowed(scope.verb, info);
}

async function serveBinding(scope: ObjectScope): Promise<void> {
  const { req, res, query, info } = scope;
  if (req.method !== 'POST') throw verbNotAllowed(scope.verb, info);
  const body = decodeObjectBody(req, await readBody(req), { ...info, kind: 'Binding' });
  validateFields(res, query, 'v1', 'Binding', body);
  // BindingREST answers a Status, which no output transformation applies to.
  send(res, 201, scope.registry.bindPod(scope.namespace, scope.name, body), scope.encoding);
}

async function serveEviction(scope: ObjectScope): Promise<void> {
  const { req, res, query, info } = scope;
  if (req.method !== 'POST') throw verbNotAllowed(scope.verb, info);
  const body = decodeObjectBody(req, await readBody(req), { ...info, kind: 'Eviction' });
  const apiVersion =
    isObj(body) && body.apiVersion === 'policy/v1beta1' ? 'policy/v1beta1' : 'policy/v1';
  validateFields(res, query, apiVersion, 'Eviction', body);
  const dryRun = writeOptions(query).dryRun;
  // The create handler writes the Status it is given with 201, whatever its code.
  const status = scope.registry.evictPod(
    scope.namespace,
    scope.name,
    body,
    dryRun ? { dryRun } : {},
  );
  send(res, 201, status, scope.encoding);
}

async function serveToken(scope: ObjectScope): Promise<void> {
  const { req, res, query, info } = scope;
  if (req.method !== 'POST') throw verbNotAllowed(scope.verb, info);
  const body = decodeObjectBody(req, await readBody(req), { ...info, kind: 'TokenRequest' });
  validateFields(res, query, 'authentication.k8s.io/v1', 'TokenRequest', body);
  send(
    res,
    201,
    scope.registry.createServiceAccountToken(scope.namespace, scope.name, body),
    scope.encoding,
  );
}

async function serveFinalize(scope: ObjectScope): Promise<void> {
  const { req, info } = scope;
  if (req.method !== 'PUT') throw verbNotAllowed(scope.verb, info);
  const body = decodeObjectBody(req, await readBody(req), info);
  scope.reply(200, scope.registry.finalizeNamespace(scope.name, body));
}

/**
 * Serves the pod subresources that stream rather than answer an object:
 * `log` from the simulated containers' output, and a Status for `exec`,
 * `attach` and `portforward`. False for any other request.
 */
export function servePodStream(
  scope: Omit<ObjectScope, 'output' | 'ctx' | 'encoding' | 'reply'>,
  logs: ContainerLogs | undefined,
): boolean {
  const { req, res, info, registry, namespace, name, subresource } = scope;
  if (info.resource !== 'pods' || info.group !== '') return false;
  if (subresource === 'log') {
    if (req.method !== 'GET') throw verbNotAllowed(scope.verb, info);
    const pod = registry.get(info, namespace, name) as Pod;
    servePodLog(req, res, pod, logs, scope.query, registry.clock.now());
    return true;
  }
  if (subresource === 'exec' || subresource === 'attach' || subresource === 'portforward') {
    if (req.method !== 'GET' && req.method !== 'POST') throw verbNotAllowed(scope.verb, info);
    registry.get(info, namespace, name);
    throw noProcesses(subresource, name);
  }
  return false;
}
