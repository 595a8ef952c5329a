import { expect, it } from 'vitest';
import {
  controllersDisabledByDefault,
  implementedControllers,
  isControllerEnabled,
} from '@kcm-ts/manager';
import { columns, run } from './02-controllers-flag.js';

it('decides --controllers as IsControllerEnabled does, and run() starts exactly the enabled, implemented ones', async () => {
  const lines: string[] = [];
  const outcomes = await run((line) => lines.push(line));
  const by = new Map(outcomes.map((o) => [o.flag, o]));
  const enabled = (flag: string) =>
    columns.filter((_, i) => by.get(`--controllers=${flag}`)?.enabled?.[i]);

  // `*` turns on everything but the controllers that are off by default.
  expect(enabled('*')).toEqual(columns.slice(0, 4));
  // `-name` turns one off; a bare list turns on only what it names.
  expect(enabled('*,-garbagecollector')).not.toContain('garbage-collector-controller');
  expect(enabled('replicaset,deployment')).toEqual([
    'deployment-controller',
    'replicaset-controller',
  ]);
  // A controller off by default needs its name, even with `*`...
  expect(enabled('*,bootstrapsigner')).toContain('bootstrap-signer-controller');
  // ...and the first entry naming a controller wins.
  expect(enabled('-replicaset,*,replicaset')).not.toContain('replicaset-controller');
  // Aliases and canonical names are the same controller.
  expect(by.get('--controllers=replicaset-controller,-deployment')?.canonical).toEqual([
    'replicaset-controller',
    '-deployment-controller',
  ]);

  // run() starts an implemented controller exactly when it is enabled (all
  // twenty-three, not only the columns shown), except the node IPAM
  // controller, which starts only with --allocate-node-cidrs; the bootstrap
  // signer is enabled but not implemented, so nothing starts for it.
  const off = new Set(controllersDisabledByDefault());
  for (const o of outcomes.filter((x) => x.enabled)) {
    const implemented = Object.keys(implementedControllers).filter(
      (name) => name !== 'node-ipam-controller' && isControllerEnabled(name, off, o.canonical!),
    );
    expect([...o.started!].sort(), o.flag).toEqual(implemented.sort());
    columns.forEach((name, i) => {
      if (name in implementedControllers)
        expect(o.started!.includes(name), `${o.flag} ${name}`).toBe(o.enabled![i]);
    });
  }

  // An unknown name is refused with kube-controller-manager's message.
  expect(by.get('--controllers=replicaset,nosuchcontroller')?.error).toBe(
    '"nosuchcontroller" is not in the list of known controllers',
  );

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/02-controllers-flag.txt');
});
