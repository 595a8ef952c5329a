// The recorders for tests and for no events: client-go tools/record/fake.go
// (FakeRecorder), and the helpers of tools/record/util and tools/reference.
import { describe, expect, it } from 'vitest';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { FakeRecorder, getReference, noopEventRecorder, noopLogger } from '../../src/index.js';
import { generateEventName, unixNano } from '../../src/record/util.js';

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: 'default', uid: 'u1', resourceVersion: '42' },
};

describe('FakeRecorder', () => {
  it('keeps "<type> <reason> <message>"', () => {
    const recorder = new FakeRecorder();
    recorder.event(pod, 'Normal', 'Pulled', 'Successfully pulled image');
    recorder.annotatedEvent(pod, { b: '2', a: '1' }, 'Warning', 'BackOff', 'Back-off');
    recorder.annotatedEvent(pod, {}, 'Normal', 'Empty', 'no annotations');
    expect(recorder.events).toEqual([
      'Normal Pulled Successfully pulled image',
      'Warning BackOff Back-off map[a:1 b:2]',
      'Normal Empty no annotations',
    ]);
  });

  it('adds the involved object when asked to', () => {
    const recorder = new FakeRecorder({ includeObject: true });
    recorder.annotatedEvent(pod, { a: '1' }, 'Normal', 'Pulled', 'ok');
    expect(recorder.events).toEqual([
      'Normal Pulled ok involvedObject{kind=Pod,apiVersion=v1} map[a:1]',
    ]);
    expect(recorder.withLogger(noopLogger)).toBe(recorder);
  });

  it('has a no-op sibling that records nothing and cannot be changed', () => {
    expect(() => noopEventRecorder.event(pod, 'Normal', 'R', 'm')).not.toThrow();
    expect(Object.isFrozen(noopEventRecorder)).toBe(true);
  });
});

describe('getReference', () => {
  it("takes an object's kind, apiVersion and metadata", () => {
    expect(getReference(pod)).toEqual({
      kind: 'Pod',
      namespace: 'default',
      name: 'web-0',
      uid: 'u1',
      apiVersion: 'v1',
      resourceVersion: '42',
    });
  });

  it('returns a copy of a reference as it is', () => {
    const ref = { kind: 'Lease', name: 'kcm', namespace: 'kube-system', fieldPath: 'spec' };
    const got = getReference(ref);
    expect(got).toEqual(ref);
    expect(got).not.toBe(ref);
  });

  it('refuses an object without a kind', () => {
    expect(() => getReference({ apiVersion: 'v1', metadata: { name: 'x' } })).toThrow(/no kind/);
  });
});

describe('event names', () => {
  it('count nanoseconds exactly (to the microsecond a double resolves), beyond what a double holds', () => {
    // 2026-01-01T00:00:00.000123Z: 1767225600000.123 ms
    expect(unixNano(1767225600000.123)).toBe(1767225600000123000n);
    expect(generateEventName('web-0', 1767225600000123000n, () => 'uuid')).toBe(
      `web-0.${1767225600000123000n.toString(16)}`,
    );
  });

  it('fall back to a UUID when not a valid DNS subdomain', () => {
    expect(generateEventName('Web_0', 1n, () => 'uuid')).toBe('uuid');
    expect(generateEventName('a'.repeat(252), 1n, () => 'uuid')).toBe('uuid');
  });
});
