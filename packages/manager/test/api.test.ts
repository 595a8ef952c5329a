// The Kubernetes object types re-exported as type-only namespaces: each is
// kubernetes-types' own type, so objects pass between packages unchanged.
// Checked by the type checker (`npm run typecheck`); the test body only
// shows that nothing of them exists at run time.
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as manager from '../src/index.js';
import type { appsv1, batchv1, corev1, metav1, rbacv1 } from '../src/index.js';

describe('the Kubernetes object types', () => {
  it('are kubernetes-types, under Go-style namespaces, and types only', () => {
    expectTypeOf<corev1.ConfigMap>().toEqualTypeOf<ConfigMap>();
    expectTypeOf<corev1.Secret>().toEqualTypeOf<Secret>();
    expectTypeOf<appsv1.Deployment>().toEqualTypeOf<Deployment>();
    expectTypeOf<metav1.ObjectMeta>().toEqualTypeOf<ObjectMeta>();
    expectTypeOf<metav1.OwnerReference>().toEqualTypeOf<OwnerReference>();
    expectTypeOf<batchv1.Job['kind']>().toEqualTypeOf<'Job' | undefined>();
    expectTypeOf<rbacv1.ClusterRole['rules']>().not.toBeAny();
    const cm: corev1.ConfigMap = { metadata: { name: 'settings' }, data: { mode: 'fast' } };
    expect(cm.data?.mode).toBe('fast');
    expect('corev1' in manager).toBe(false);
  });
});
