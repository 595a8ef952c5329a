import { implementedControllers, knownControllers, names } from '@kcm-ts/manager';
import { expect, it } from 'vitest';
import { decisions, drawFrame } from './frame-svg.js';

it('starts the controllers kcm-ts implements and passes over the rest, as StartControllers does', () => {
  const list = decisions();
  expect(list.map((d) => d.name).sort()).toEqual(knownControllers());
  const started = list.filter((d) => d.init);
  expect(started.map((d) => d.name).sort()).toEqual(Object.keys(implementedControllers).sort());
  expect(started.find((d) => d.name === names.replicaSetController)?.init).toBe(
    'startReplicaSetController',
  );
  expect(started.find((d) => d.name === names.endpointSliceController)?.init).toBe(
    'startEndpointSliceController',
  );
  // Twenty-three started; of the twenty-seven passed over, twenty are not in kcm-ts.
  expect(started).toHaveLength(23);
  expect(list.filter((d) => d.skipped === 'not in kcm-ts')).toHaveLength(20);
  expect(list.find((d) => d.name === 'service-lb-controller')?.skipped).toBe('cloud provider');
  expect(list.find((d) => d.name === 'bootstrap-signer-controller')?.skipped).toBe(
    'disabled by default',
  );
});

it('draws the frame of the course from the registry', async () => {
  const svg = drawFrame();
  for (const name of Object.keys(implementedControllers)) expect(svg).toContain(name);
  await expect(svg).toMatchFileSnapshot('../the-frame.svg');
});
