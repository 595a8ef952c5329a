import { isBadRequest, isStatusError } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { checkFields, dropUnknownFields } from '../src/apiserver/field-validation.js';

const deployment = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' }, colour: 'blue' },
  spec: {
    replica: 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          { name: 'a', image: 'nginx' },
          { name: 'b', image: 'nginx', imagePullPolice: 'Always', env: [{ name: 'X', valu: '1' }] },
        ],
      },
    },
  },
});

describe('unknown fields', () => {
  it('are named with Go decoding paths, in document order, and dropped', () => {
    const d = deployment();
    expect(dropUnknownFields('apps/v1', 'Deployment', d)).toEqual([
      'metadata.colour',
      'spec.replica',
      'spec.template.spec.containers[1].imagePullPolice',
      'spec.template.spec.containers[1].env[0].valu',
    ]);
    expect(d.metadata).toEqual({ name: 'web', labels: { app: 'web' } });
    expect(d.spec.template.spec.containers[1]).toEqual({
      name: 'b',
      image: 'nginx',
      env: [{ name: 'X' }],
    });
  });

  it('leave map keys, free-form fields and known fields alone', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { annotations: { anything: 'x' } },
      data: { any: 'key' },
    };
    expect(dropUnknownFields('v1', 'ConfigMap', cm)).toEqual([]);
    const managed = {
      metadata: {
        managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }],
      },
    };
    expect(dropUnknownFields('apps/v1', 'Deployment', managed)).toEqual([]);
    // A kind without a field list is not checked.
    expect(dropUnknownFields('example.com/v1', 'Widget', { spec: { x: 1 } })).toEqual([]);
  });

  it('skip strategic merge patch directives in patches', () => {
    const patch = {
      spec: {
        template: {
          spec: {
            $setElementOrder: 'x',
            containers: [{ name: 'a', $patch: 'delete' }],
            '$setElementOrder/containers': [{ name: 'a' }],
            typo: 1,
          },
        },
      },
    };
    expect(dropUnknownFields('apps/v1', 'Deployment', patch, true)).toEqual([
      'spec.template.spec.typo',
    ]);
  });

  it('know the fields a 1.32 server adds to the 1.30 types', () => {
    const lease = {
      spec: { holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' },
    };
    expect(dropUnknownFields('coordination.k8s.io/v1', 'Lease', lease)).toEqual([]);
  });
});

describe('checkFields', () => {
  const strictError = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err) {
      if (isStatusError(err) && isBadRequest(err)) return err.message;
      throw err;
    }
    throw new Error('expected a 400');
  };

  it("refuses them under Strict, with kube-apiserver's message for each kind of write", () => {
    expect(strictError(() => checkFields('apps/v1', 'Deployment', deployment(), 'Strict'))).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "metadata.colour", unknown field "spec.replica", unknown field "spec.template.spec.containers[1].imagePullPolice", unknown field "spec.template.spec.containers[1].env[0].valu"',
    );
    expect(
      strictError(() =>
        checkFields('v1', 'Pod', { spec: { nodname: 'x' } }, 'Strict', { patch: true }),
      ),
    ).toBe('strict decoding error: unknown field "spec.nodname"');
    expect(
      strictError(() =>
        checkFields('v1', 'Pod', { spec: { nodname: 'x' } }, 'Strict', { apply: 'default/p' }),
      ),
    ).toBe(
      'failed to create typed patch object (default/p; v1, Kind=Pod): .spec.nodname: field not declared in schema',
    );
  });

  it('warns under Warn (the default) and says nothing under Ignore, dropping them either way', () => {
    const pod = { spec: { nodname: 'x' } };
    expect(checkFields('v1', 'Pod', pod)).toEqual(['unknown field "spec.nodname"']);
    expect(pod).toEqual({ spec: {} });
    const again = { spec: { nodname: 'x' } };
    expect(checkFields('v1', 'Pod', again, 'Ignore')).toEqual([]);
    expect(again).toEqual({ spec: {} });
  });
});
