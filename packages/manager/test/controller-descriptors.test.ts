import { describe, expect, it } from 'vitest';
import {
  canonicalControllers,
  controllerAliases,
  controllersDisabledByDefault,
  isControllerEnabled,
  knownControllers,
  newControllerDescriptors,
  validateControllers,
} from '../src/controller-descriptors.js';

const off = new Set(controllersDisabledByDefault());

describe('the controller registry', () => {
  it('knows every controller of kube-controller-manager under its canonical name', () => {
    const known = knownControllers();
    expect(known).toContain('replicaset-controller');
    expect(known).toContain('garbage-collector-controller');
    expect(known).toContain('serviceaccount-token-controller');
    expect(known).toEqual([...known].sort());
    expect(new Set(known).size).toBe(known.length);
    expect(controllerAliases().get('replicaset')).toBe('replicaset-controller');
    expect(controllerAliases().get('garbagecollector')).toBe('garbage-collector-controller');
    expect(controllersDisabledByDefault()).toEqual([
      'bootstrap-signer-controller',
      'selinux-warning-controller',
      'token-cleaner-controller',
    ]);
  });

  it('wires init functions only for known names', () => {
    const init = () => Promise.resolve(undefined);
    const ds = newControllerDescriptors({ 'replicaset-controller': init });
    expect(ds.get('replicaset-controller')?.init).toBe(init);
    expect(ds.get('job-controller')?.init).toBeUndefined();
    expect(() => newControllerDescriptors({ 'no-such-controller': init })).toThrow(
      'init function for unknown controller "no-such-controller"',
    );
  });

  it('decides enablement as IsControllerEnabled: the first explicit entry wins', () => {
    const on = (name: string, list: string[]) => isControllerEnabled(name, off, list);
    expect(on('replicaset-controller', ['*'])).toBe(true);
    expect(on('bootstrap-signer-controller', ['*'])).toBe(false);
    expect(on('bootstrap-signer-controller', ['*', 'bootstrap-signer-controller'])).toBe(true);
    expect(on('replicaset-controller', ['-replicaset-controller', '*'])).toBe(false);
    expect(on('replicaset-controller', ['replicaset-controller', '-replicaset-controller'])).toBe(
      true,
    );
    expect(on('replicaset-controller', ['-replicaset-controller', 'replicaset-controller'])).toBe(
      false,
    );
    expect(on('replicaset-controller', ['deployment-controller'])).toBe(false);
    expect(on('replicaset-controller', [])).toBe(false);
  });

  it('resolves aliases, keeping - and *', () => {
    expect(canonicalControllers(['*', '-replicaset', 'garbagecollector'])).toEqual([
      '*',
      '-replicaset-controller',
      'garbage-collector-controller',
    ]);
  });

  it('refuses unknown names with kube-controller-manager’s message, with or without -', () => {
    expect(validateControllers(['*', 'replicaset', '-deployment-controller'])).toEqual([]);
    expect(validateControllers(['replicasets', '-nope'])).toEqual([
      '"replicasets" is not in the list of known controllers',
      '"nope" is not in the list of known controllers',
    ]);
  });
});
