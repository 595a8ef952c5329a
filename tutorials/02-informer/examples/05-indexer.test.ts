import { expect, it } from 'vitest';
import { byNode, run } from './05-indexer.js';

it('indexes by namespace and by node, and keeps both indices right through an update and a delete', async () => {
  const lines: string[] = [];
  run((line) => lines.push(line));
  const after = (heading: string) => lines.slice(lines.indexOf(heading) + 1);
  // Four pods: web-3 has no node yet, so byNode does not hold it.
  expect(after('four pods added:').slice(0, 4)).toEqual([
    '  keys:                default/web-1 default/web-2 default/web-3 kube-system/dns',
    '  namespace default:   default/web-1 default/web-2 default/web-3',
    '  byNode node-a:       default/web-1 kube-system/dns',
    '  byNode node-b:       default/web-2',
  ]);
  // The update moved web-3 under node-b; the delete took web-1 out of both indices.
  expect(after('web-3 scheduled to node-b, web-1 deleted:').slice(0, 4)).toEqual([
    '  keys:                default/web-2 default/web-3 kube-system/dns',
    '  namespace default:   default/web-2 default/web-3',
    '  byNode node-a:       kube-system/dns',
    '  byNode node-b:       default/web-2 default/web-3',
  ]);
  expect(lines).toContain('objects on node-a: dns');
  expect(lines).toContain('get by key default/web-2: node-b');
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/05-indexer.txt');
});

it('gives an unscheduled pod no value under byNode', () => {
  expect(byNode({ metadata: { name: 'p' }, spec: { containers: [] } })).toEqual([]);
  expect(byNode({ metadata: { name: 'p' }, spec: { containers: [], nodeName: 'n' } })).toEqual([
    'n',
  ]);
});
