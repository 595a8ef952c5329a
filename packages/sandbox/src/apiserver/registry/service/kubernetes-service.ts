// The `kubernetes` Service kube-apiserver keeps in `default`, pointing at
// the API server itself: pkg/controlplane/controller/kubernetesservice
// (controller.go, CreateOrUpdateMasterServiceIfNeeded).
import type { KubeObject, UpdateOptions } from '@kcm-ts/apimachinery';
import type { ResourceInfo } from '../../resources.js';
import type { Storage } from '../../storage/storage.js';
import { kubernetesServiceIP } from './allocation.js';
import { type Obj, obj } from '../../unstructured.js';

/** What the controller needs of the store: the Service's storage and its verbs. */
export interface ServiceWriter {
  readonly storage: Storage;
  resource(group: string, plural: string): ResourceInfo;
  get(info: ResourceInfo, namespace: string, name: string): KubeObject;
  create(info: ResourceInfo, namespace: string, body: unknown): KubeObject;
  update(
    info: ResourceInfo,
    namespace: string,
    name: string,
    body: unknown,
    opts?: UpdateOptions,
  ): unknown;
}

/**
 * The `kubernetes` Service that kube-apiserver keeps in `default`: the first
 * ClusterIP of the range, port 443 (`https`) to the API server's own port.
 */
function kubernetesService(apiServerPort: number): Obj {
  return {
    metadata: {
      name: 'kubernetes',
      namespace: 'default',
      labels: { component: 'apiserver', provider: 'kubernetes' },
    },
    spec: {
      type: 'ClusterIP',
      clusterIP: kubernetesServiceIP,
      clusterIPs: [kubernetesServiceIP],
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: apiServerPort }],
      sessionAffinity: 'None',
    },
  };
}

/**
 * Creates the `kubernetes` Service, or points it at `apiServerPort` again
 * after a restart on another port, as kube-apiserver's controller does.
 */
export function ensureKubernetesService(registry: ServiceWriter, apiServerPort: number): void {
  const info = registry.resource('', 'services');
  const wanted = kubernetesService(apiServerPort);
  const found = registry.storage.get(info.storage, 'default/kubernetes') as Obj | undefined;
  if (!found) {
    registry.create(info, 'default', wanted);
    return;
  }
  const ports = obj(wanted.spec).ports;
  if (JSON.stringify(obj(found.spec).ports) === JSON.stringify(ports)) return;
  const current = registry.get(info, 'default', 'kubernetes') as unknown as Obj;
  registry.update(info, 'default', 'kubernetes', {
    ...current,
    spec: { ...obj(current.spec), ports },
  });
}
