// Ports of controller_utils_test.go's TestControllerExpectations and
// TestUIDExpectations, on a fake clock.
import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  ControllerExpectations,
  UIDTrackingControllerExpectations,
  expectationsTimeout,
} from '../src/index.js';

describe('ControllerExpectations', () => {
  it('is satisfied when nothing was ever expected', () => {
    const exp = new ControllerExpectations({ clock: new FakeClock() });
    expect(exp.satisfiedExpectations('default/rc')).toBe(true);
    expect(exp.getExpectations('default/rc')).toBeUndefined();
  });

  it('waits for every expected add and delete, then is satisfied', () => {
    const clock = new FakeClock();
    const exp = new ControllerExpectations({ clock });
    const key = 'default/rc';
    const adds = 2;
    const dels = 10;
    exp.setExpectations(key, adds, dels);
    expect(exp.getExpectations(key)?.timestamp).toBe(clock.now());
    for (let i = 0; i < adds + 1; i++) {
      // Deletions outstanding: never satisfied, even with adds overshooting.
      expect(exp.satisfiedExpectations(key)).toBe(false);
      exp.creationObserved(key);
    }
    expect(exp.getExpectations(key)?.getExpectations()).toEqual([-1, dels]);
    for (let i = 0; i < dels; i++) {
      expect(exp.satisfiedExpectations(key)).toBe(false);
      exp.deletionObserved(key);
    }
    expect(exp.satisfiedExpectations(key)).toBe(true);
    expect(exp.getExpectations(key)?.fulfilled()).toBe(true);
  });

  it('replaces, raises and lowers a record', () => {
    const exp = new ControllerExpectations({ clock: new FakeClock() });
    const key = 'default/rc';
    exp.raiseExpectations(key, 1, 1); // no record: nothing to raise
    expect(exp.getExpectations(key)).toBeUndefined();
    exp.expectCreations(key, 3);
    expect(exp.getExpectations(key)?.getExpectations()).toEqual([3, 0]);
    exp.expectDeletions(key, 2); // replaces, does not add
    expect(exp.getExpectations(key)?.getExpectations()).toEqual([0, 2]);
    exp.raiseExpectations(key, 1, 1);
    expect(exp.getExpectations(key)?.getExpectations()).toEqual([1, 3]);
    exp.lowerExpectations(key, 1, 3);
    expect(exp.satisfiedExpectations(key)).toBe(true);
    exp.deleteExpectations(key);
    expect(exp.getExpectations(key)).toBeUndefined();
  });

  it('expires unfulfilled expectations after 5 minutes, and not a moment before', () => {
    const clock = new FakeClock();
    const exp = new ControllerExpectations({ clock });
    expect(expectationsTimeout).toBe(5 * 60 * 1000);
    exp.expectCreations('default/rc', 1);
    clock.step(expectationsTimeout);
    expect(exp.satisfiedExpectations('default/rc')).toBe(false);
    clock.step(1);
    expect(exp.satisfiedExpectations('default/rc')).toBe(true);
    // New expectations restart the timer.
    exp.expectCreations('default/rc', 1);
    expect(exp.satisfiedExpectations('default/rc')).toBe(false);
  });

  it('refuses counts that are not integers', () => {
    const exp = new ControllerExpectations({ clock: new FakeClock() });
    expect(() => exp.expectCreations('default/rc', 1.5)).toThrow(/add must be an integer/);
    expect(() => exp.setExpectations('default/rc', 0, Number.NaN)).toThrow(
      /del must be an integer/,
    );
    expect(exp.getExpectations('default/rc')).toBeUndefined();
  });
});

describe('UIDTrackingControllerExpectations', () => {
  it('counts each expected pod once, whether seen terminating, deleted, or both', () => {
    const exp = new UIDTrackingControllerExpectations(
      new ControllerExpectations({ clock: new FakeClock() }),
    );
    const rcKey = 'default/rc';
    const podKeys = ['default/p1', 'default/p2', 'default/p3'];
    exp.expectDeletions(rcKey, podKeys);
    expect([...(exp.getUIDs(rcKey) ?? [])]).toEqual(podKeys);
    expect(exp.getExpectations(rcKey)?.getExpectations()).toEqual([0, 3]);

    exp.deletionObserved(rcKey, 'default/p1'); // the deletionTimestamp update
    exp.deletionObserved(rcKey, 'default/p1'); // the final delete: not counted again
    exp.deletionObserved(rcKey, 'default/unknown'); // not expected: ignored
    expect(exp.getExpectations(rcKey)?.getExpectations()).toEqual([0, 2]);
    expect(exp.satisfiedExpectations(rcKey)).toBe(false);

    exp.deletionObserved(rcKey, 'default/p2');
    exp.deletionObserved(rcKey, 'default/p3');
    expect(exp.satisfiedExpectations(rcKey)).toBe(true);
    expect(exp.getUIDs(rcKey)?.size).toBe(0);
  });

  it('drops both the counts and the keys on deleteExpectations', () => {
    const exp = new UIDTrackingControllerExpectations(
      new ControllerExpectations({ clock: new FakeClock() }),
    );
    exp.expectDeletions('default/rc', ['default/p1']);
    exp.deleteExpectations('default/rc');
    expect(exp.getUIDs('default/rc')).toBeUndefined();
    expect(exp.getExpectations('default/rc')).toBeUndefined();
    expect(exp.satisfiedExpectations('default/rc')).toBe(true);
    // A late delete of the old pod changes nothing.
    exp.deletionObserved('default/rc', 'default/p1');
    expect(exp.getExpectations('default/rc')).toBeUndefined();
  });

  it('passes creations through to the counting expectations', () => {
    const exp = new UIDTrackingControllerExpectations(
      new ControllerExpectations({ clock: new FakeClock() }),
    );
    exp.expectCreations('default/rc', 2);
    exp.creationObserved('default/rc');
    expect(exp.satisfiedExpectations('default/rc')).toBe(false);
    exp.lowerExpectations('default/rc', 1, 0);
    expect(exp.satisfiedExpectations('default/rc')).toBe(true);
  });
});
