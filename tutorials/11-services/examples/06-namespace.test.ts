import { expect, it } from 'vitest';
import { run } from './06-namespace.js';

it('furnishes a new namespace, puts back what is taken, and aggregates a role into view, edit and admin', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  // The default ServiceAccount, and the CA the manager was given, in the new namespace.
  expect(r.serviceAccount.metadata?.namespace).toBe('shop');
  expect(r.caCert).toMatch(/^-----BEGIN CERTIFICATE-----/);
  expect(r.configMap.data).toEqual({ 'ca.crt': r.caCert });
  expect(r.configMap.metadata?.annotations?.['kubernetes.io/description']).toMatch(
    /^Contains a CA bundle that can be used to verify the kube-apiserver/,
  );
  // Deleted: made again (a new object, a new UID). Edited: rewritten.
  expect(r.uids[1]).not.toBe('');
  expect(r.uids[1]).not.toBe(r.uids[0]);
  expect(r.restored).toBe(r.caCert);
  // One role labelled aggregate-to-view reaches view, edit (which selects
  // view) and admin (which selects edit).
  expect(r.widgets).toEqual([true, true, true]);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/06-namespace.txt');
});
