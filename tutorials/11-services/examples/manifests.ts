// The objects the chapter's examples create: the Service `web` and its
// pods, as `kubectl create -f` would send them. The pods stand in for those
// of a Deployment (the examples run the EndpointSlice controller alone):
// same labels, an nginx container whose port 80 is named `http`.
import type { Pod, Service } from 'kubernetes-types/core/v1.js';

//#region service
/** The Service `web`: port 80, sent to the port named `http` of every pod labelled `app: web`. */
export function webService(): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web' },
    spec: {
      selector: { app: 'web' },
      ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
    },
  };
}
//#endregion service

/** A pod of `web`, named `name`. */
export function webPod(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'web' } },
    spec: {
      containers: [
        {
          name: 'nginx',
          image: 'nginx:1.27',
          ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
        },
      ],
    },
  };
}

/** The pod names web-001, web-002, ... up to `n` (three digits, so they sort). */
export const podNames = (n: number, from = 1): string[] =>
  Array.from({ length: n }, (_, i) => `web-${String(from + i).padStart(3, '0')}`);
