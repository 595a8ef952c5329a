// Chapter 0, part 2: the contract every controller relies on, shown against
// the sandbox API server through the same client a controller would use on a
// real cluster. Run: npm run start:api -w tutorials/00-introduction
import { StatusError, isConflict, isResourceExpired, isStatus } from '@kcm-ts/apimachinery';
import type { KubeObject, ResourceClient } from '@kcm-ts/apimachinery';
import { createClient } from '@kcm-ts/client';
import { startSandbox } from '@kcm-ts/sandbox';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';

//#region retry-on-conflict
/**
 * Reads the object, changes it and writes it back, starting again from a
 * fresh read when someone else wrote in between: the loop client-go offers as
 * `retry.RetryOnConflict` (`client-go/util/retry/util.go`), which also waits
 * about 10ms between attempts (`retry.DefaultRetry`); here the next attempt
 * starts at once.
 */
export async function mutate<T extends KubeObject>(
  client: ResourceClient<T>,
  name: string,
  change: (obj: T) => T | Promise<T>,
  attempts = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const current = await client.get(name);
    try {
      // The update carries current.metadata.resourceVersion: the server
      // refuses it with 409 Conflict if the object has moved on since.
      return await client.update(await change(current));
    } catch (err) {
      if (!isConflict(err) || attempt === attempts) throw err;
    }
  }
}
//#endregion retry-on-conflict

/** Runs the walkthrough against a fresh sandbox, logging what the server answers. */
export async function run(log: (line: string) => void = console.log): Promise<void> {
  // A small history window, so the last step can show a watch falling behind.
  const sandbox = await startSandbox({ historyWindow: 5 });
  try {
    const client = createClient(sandbox.kubeconfig);
    const configMaps = client.configMaps.inNamespace('default');

    //#region resource-version
    const created = await configMaps.create({
      metadata: { name: 'settings', labels: { app: 'demo' } },
      data: { mode: 'fast' },
    });
    log(`created settings at resourceVersion ${created.metadata?.resourceVersion}`);

    const updated = await configMaps.update({ ...created, data: { mode: 'safe' } });
    log(`updated settings at resourceVersion ${updated.metadata?.resourceVersion}`);

    // A second writer still holding the first copy loses.
    const stale = await configMaps
      .update({ ...created, data: { mode: 'turbo' } })
      .catch((err: unknown) => err);
    log(`a write from the stale copy: ${isConflict(stale) ? '409 Conflict' : 'accepted?!'}`);
    //#endregion resource-version

    //#region mutate
    const merged = await mutate<ConfigMap>(configMaps, 'settings', (cm) => ({
      ...cm,
      data: { ...cm.data, replicas: '3' },
    }));
    log(`mutate() re-read and wrote: ${JSON.stringify(merged.data)}`);
    //#endregion mutate

    //#region list-then-watch
    const list = await configMaps.list({ labelSelector: 'app=demo' });
    const from = list.metadata.resourceVersion;
    log(`list app=demo: ${list.items.length} item(s) at resourceVersion ${from}`);

    const events = await configMaps.watch({ labelSelector: 'app=demo', resourceVersion: from });
    await configMaps.create({ metadata: { name: 'extra', labels: { app: 'demo' } } });
    await configMaps.delete('extra');
    let seen = 0;
    for await (const event of events) {
      if (event.type === 'ERROR') throw StatusError.fromStatus(event.object);
      const { name, resourceVersion } = event.object.metadata ?? {};
      log(`watch: ${event.type} ${name} at ${resourceVersion}`);
      if (++seen === 2) break; // leaving the loop closes the watch
    }
    //#endregion list-then-watch

    //#region gone
    // Later writes push `from` out of the server's history window ...
    for (let i = 0; i < 6; i++) {
      await mutate<ConfigMap>(configMaps, 'settings', (cm) => ({
        ...cm,
        data: { ...cm.data, tick: String(i) },
      }));
    }
    // ... so resuming there is refused, and the only way on is a fresh list.
    // The refusal comes as an ERROR event carrying a Status, which a client
    // turns back into an error, as client-go's reflector does.
    const late = await configMaps.watch({ resourceVersion: from });
    for await (const event of late) {
      const err =
        event.type === 'ERROR' && isStatus(event.object)
          ? StatusError.fromStatus(event.object)
          : undefined;
      const what = isResourceExpired(err) ? `${err?.code} ${err?.reason}: relist` : event.type;
      log(`watch from ${from} after 6 more writes: ${what}`);
      break;
    }
    //#endregion gone

    //#region generation
    const deployments = client.deployments.inNamespace('default');
    let web = await deployments.create({
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    });
    const show = (what: string) =>
      log(
        `${what.padEnd(34)} generation=${web.metadata?.generation} observedGeneration=${web.status?.observedGeneration ?? '-'}`,
      );
    show('created');
    // A controller reports what it has acted on through the status subresource.
    web = await deployments.updateStatus({ ...web, status: { observedGeneration: 1 } });
    show('status written by the controller');
    web = await deployments.update({ ...web, spec: { ...web.spec!, replicas: 3 } });
    show('spec changed by a user');
    //#endregion generation
  } finally {
    await sandbox.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
