// Chapter 8's controller: every ConfigMap labelled `mirror=true` gets a
// Secret of the same name holding the same data, controlled by the
// ConfigMap. The Secret follows the ConfigMap's changes, comes back when
// deleted, goes away when the label does, and is deleted with the ConfigMap
// by the garbage collector (its ownerReference). Written with
// @kcm-ts/manager's controller builder and helpers.
//#region mirror
import { getControllerOf, isNotFound } from '@kcm-ts/apimachinery';
import { informerResources } from '@kcm-ts/informer';
import { createOrUpdate, newControllerManagedBy, setControllerReference } from '@kcm-ts/manager';
import type { corev1 } from '@kcm-ts/manager';

const { configMaps, secrets } = informerResources;
const configMapKind = { group: '', version: 'v1', kind: 'ConfigMap' };
const base64 = (data: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));

export const configMapMirror = newControllerManagedBy()
  // Only labelled ConfigMaps are listed, watched and cached.
  .for(configMaps, { labelSelector: 'mirror=true' })
  // A change to a Secret wakes the ConfigMap that controls it.
  .owns(secrets)
  .workers(2)
  .complete((ctx) => {
    const client = ctx.client<corev1.Secret>(secrets);
    return async (req, signal) => {
      const cm = ctx.get<corev1.ConfigMap>(configMaps, req);
      if (cm === undefined || cm.metadata?.deletionTimestamp) {
        // Unlabelled or deleted: remove the Secret this controller made.
        const secret = ctx.get<corev1.Secret>(secrets, req);
        if (secret === undefined || getControllerOf(secret)?.kind !== 'ConfigMap') return;
        await client
          .inNamespace(req.namespace)
          .delete(req.name, { signal })
          .catch((err: unknown) => {
            if (!isNotFound(err)) throw err;
          });
        return;
      }
      const want: corev1.Secret = { metadata: { name: req.name, namespace: req.namespace } };
      const { result } = await createOrUpdate(
        client,
        want,
        (secret) => {
          setControllerReference(cm, secret, configMapKind);
          secret.type = 'Opaque';
          secret.data = { ...base64(cm.data), ...cm.binaryData };
        },
        { clock: ctx.clock, signal },
      );
      if (result !== 'unchanged')
        ctx.recorder.event(cm, 'Normal', 'Mirrored', `Secret ${req.name} ${result}`);
    };
  });
//#endregion mirror
