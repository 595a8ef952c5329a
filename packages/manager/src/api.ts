// The Kubernetes object types as type-only namespaces, named as Go code
// names its imports of k8s.io/api and k8s.io/apimachinery (`corev1`,
// `appsv1`, `metav1`, ...), so that a controller written with the builder
// takes its types from the package it already depends on. They come from
// `kubernetes-types` (the Kubernetes release it follows is in the README);
// only stable API versions are here. Type-only: nothing exists at run time,
// so a consumer imports them with `import type`.
export type * as admissionregistrationv1 from 'kubernetes-types/admissionregistration/v1.js';
export type * as apiextensionsv1 from 'kubernetes-types/apiextensions/v1.js';
export type * as appsv1 from 'kubernetes-types/apps/v1.js';
export type * as authenticationv1 from 'kubernetes-types/authentication/v1.js';
export type * as authorizationv1 from 'kubernetes-types/authorization/v1.js';
export type * as autoscalingv1 from 'kubernetes-types/autoscaling/v1.js';
export type * as autoscalingv2 from 'kubernetes-types/autoscaling/v2.js';
export type * as batchv1 from 'kubernetes-types/batch/v1.js';
export type * as certificatesv1 from 'kubernetes-types/certificates/v1.js';
export type * as coordinationv1 from 'kubernetes-types/coordination/v1.js';
export type * as corev1 from 'kubernetes-types/core/v1.js';
export type * as discoveryv1 from 'kubernetes-types/discovery/v1.js';
export type * as eventsv1 from 'kubernetes-types/events/v1.js';
export type * as flowcontrolv1 from 'kubernetes-types/flowcontrol/v1.js';
export type * as metav1 from 'kubernetes-types/meta/v1.js';
export type * as networkingv1 from 'kubernetes-types/networking/v1.js';
export type * as nodev1 from 'kubernetes-types/node/v1.js';
export type * as policyv1 from 'kubernetes-types/policy/v1.js';
export type * as rbacv1 from 'kubernetes-types/rbac/v1.js';
export type * as schedulingv1 from 'kubernetes-types/scheduling/v1.js';
export type * as storagev1 from 'kubernetes-types/storage/v1.js';
