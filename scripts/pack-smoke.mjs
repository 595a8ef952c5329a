#!/usr/bin/env node
// The smoke test behind every package's install line: `npm pack` every published
// package, install all the tarballs into a fresh project, and there
//   - `import` each package (ESM) and `require` it (CJS), check that it has exports
//     and call one trivial function where we know one;
//   - run every command a package installs (its `bin`, what `npx` runs) with --help;
//   - type-check a consumer of each under moduleResolution node16 (ESM and CJS files)
//     and bundler, with the repo's own TypeScript.
// Peer dependencies are installed at the versions the repo develops against, as a user
// on this Node would pin them. A package whose peer is ESM-only can be required only
// through Node's require(esm), so its CJS consumer is type-checked under node20.
// A tarball may hold only dist/, src/, README.md, LICENSE, CHANGELOG.md, package.json.
//
// SMOKE_CLIENT_NODE=2 runs the same checks with @kubernetes/client-node 2 and the
// Node 24 it needs (both from the registry): the compatibility run for the peer range
// `^1.4.0 || ^2.0.0` (`npm run compat:client-node-2`; not part of `npm test`, which
// runs on Node 20).
//
// Usage: node scripts/pack-smoke.mjs   (after `npm run build`; KEEP_SMOKE=1 keeps the temp dir)
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const clientNode2 = process.env.SMOKE_CLIENT_NODE === '2';
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const nodeTypes = path.join(root, 'node_modules', '@types');
const ALLOWED = /^package\/(dist\/.+|src\/.+|README\.md|LICENSE|CHANGELOG\.md|package\.json)$/;

// One trivial call per package where we know one: a JS expression of `m` (the module)
// that is true, or a promise of true. Packages not listed only need some export.
const CALLS = {
  '@kcm-ts/apimachinery': `typeof new m.FakeClock().now() === 'number'`,
  '@kcm-ts/workqueue': `(async () => { const q = m.newQueue(); q.add('a'); const [item] = await q.get(); q.done(item); q.shutDown(); return item === 'a' && q.len() === 0; })()`,
  '@kcm-ts/sandbox': `(async () => { const s = await m.startSandbox(); const cm = await s.client('', 'configmaps').inNamespace('default').create({ metadata: { name: 'a' } }); await s.stop(); return /^[1-9][0-9]*$/.test(cm.metadata.resourceVersion ?? ''); })()`,
  // A round trip over HTTPS to a sandbox, through the installed client-node.
  '@kcm-ts/client': `(async () => { const { startSandbox } = await import('@kcm-ts/sandbox'); const s = await startSandbox(); try { const cms = m.createClient(s.kubeconfigObject).configMaps.inNamespace('default'); await cms.create({ metadata: { name: 'a', labels: { x: 'y' } } }); const list = await cms.list({ labelSelector: 'x=y' }); return list.items.length === 1 && list.items[0].metadata.name === 'a'; } finally { await s.stop(); } })()`,
};
// The same, typed, for the consumer files that tsc checks (`pkg` is the namespace).
const TYPED = {
  '@kcm-ts/apimachinery': `export const now: number = new pkg.FakeClock().now();`,
  '@kcm-ts/workqueue': `export const queue: pkg.Queue<string> = pkg.newQueue<string>();\nqueue.add('a');`,
};

// npm sets npm_config_* for the scripts it runs; some of them (local_prefix above all)
// would point the npm we start back at the repo instead of the temp project.
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) =>
      !/^npm_config_(local_prefix|prefix|workspaces?|include_workspace_root|global|dry_run|package_lock_only|offline|prefer_offline)$/i.test(
        k,
      ),
  ),
);

function run(command, args, cwd) {
  const r = spawnSync(command, args, {
    cwd,
    env,
    encoding: 'utf8',
    timeout: 300_000,
    shell: process.platform === 'win32',
  });
  return {
    ok: r.status === 0,
    out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim(),
  };
}

/** The paths in a .tgz (ustar, with pax and GNU long names). */
function tarEntries(file) {
  const buf = gunzipSync(readFileSync(file));
  const names = [];
  let longName = null;
  for (let off = 0; off + 512 <= buf.length;) {
    const h = buf.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const field = (a, b) =>
      h
        .subarray(a, b)
        .toString('utf8')
        .replace(/\0[\s\S]*$/, '');
    const size = parseInt(field(124, 136).trim() || '0', 8);
    const type = field(156, 157);
    const body = buf.subarray(off + 512, off + 512 + size).toString('utf8');
    if (type === 'x') longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body)?.[1] ?? longName;
    else if (type === 'L') longName = body.replace(/\0[\s\S]*$/, '');
    else if (type !== 'g') {
      const prefix = field(257, 262) === 'ustar' ? field(345, 500) : '';
      const name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
      if (type !== '5') names.push(name.replace(/^\.\//, ''));
      longName = null;
    }
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}

/** Every file path an exports/main/module/types entry points at. */
function entryFiles(pkg) {
  const out = new Set();
  const walk = (v) =>
    typeof v === 'string'
      ? v.startsWith('./') && out.add(v.slice(2))
      : v && Object.values(v).forEach(walk);
  walk(pkg.exports);
  for (const key of ['main', 'module', 'types'])
    if (pkg[key]) walk(pkg[key].replace(/^(?!\.\/)/, './'));
  return [...out];
}

/** The version of `name` in the repo's node_modules. */
function installedVersion(name) {
  const file = path.join(root, 'node_modules', name, 'package.json');
  if (!existsSync(file))
    throw new Error(`pack-smoke: peer ${name} is not installed; run \`npm ci\``);
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

/** True when a peer of `p` is an ES module with no CommonJS entry. */
function esmOnlyPeer(p) {
  return Object.keys(p.pkg.peerDependencies ?? {}).some((name) => {
    const peer = JSON.parse(
      readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8'),
    );
    return peer.type === 'module' && !JSON.stringify(peer.exports ?? {}).includes('"require"');
  });
}

// ---- what to smoke-test ----------------------------------------------------------

const packagesDir = path.join(root, 'packages');
const packages = readdirSync(packagesDir)
  .filter((d) => existsSync(path.join(packagesDir, d, 'package.json')))
  .sort()
  .map((dir) => ({
    dir,
    pkg: JSON.parse(readFileSync(path.join(packagesDir, dir, 'package.json'), 'utf8')),
  }))
  .filter(({ pkg }) => !pkg.private)
  .map((p) => ({ ...p, name: p.pkg.name, failures: [], notes: [] }));
if (packages.length === 0) {
  console.error('pack-smoke: no published packages under packages/');
  process.exit(1);
}
const unbuilt = packages.filter(
  ({ dir }) => !existsSync(path.join(packagesDir, dir, 'dist', 'index.js')),
);
if (unbuilt.length > 0) {
  console.error(
    `pack-smoke: not built: ${unbuilt.map((p) => `packages/${p.dir}/dist/index.js`).join(', ')} is missing.`,
  );
  console.error('Run `npm run build` first.');
  process.exit(1);
}
if (!existsSync(tsc)) {
  console.error(`pack-smoke: ${tsc} is missing; run \`npm ci\` first.`);
  process.exit(1);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'kcm-ts-pack-smoke-'));
const general = [];
try {
  // 1. Pack, and check what each tarball holds.
  const tarballs = path.join(tmp, 'tarballs');
  mkdirSync(tarballs);
  for (const p of packages) {
    const packed = run(
      'npm',
      ['pack', '--pack-destination', tarballs, '--loglevel=error'],
      path.join(packagesDir, p.dir),
    );
    p.tarball = path.join(
      tarballs,
      `${p.name.replace(/^@/, '').replace('/', '-')}-${p.pkg.version}.tgz`,
    );
    if (!packed.ok || !existsSync(p.tarball)) {
      p.failures.push(`npm pack failed:\n${packed.out}`);
      continue;
    }
    const entries = tarEntries(p.tarball);
    for (const entry of entries)
      if (!ALLOWED.test(entry))
        p.failures.push(
          `tarball holds ${entry}, outside dist/, src/ and the allowed top-level files`,
        );
    for (const file of entryFiles(p.pkg))
      if (!entries.includes(`package/${file}`))
        p.failures.push(`tarball lacks ${file}, which package.json points at`);
    p.notes.push(`${entries.length} files, ${(statSync(p.tarball).size / 1024).toFixed(1)} kB`);
  }
  const packedOk = packages.filter((p) => existsSync(p.tarball)); // a bad tarball is still smoke-tested

  // 2. A fresh project with all the tarballs installed at once (from the npm cache).
  const project = path.join(tmp, 'project');
  mkdirSync(project);
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'smoke', private: true, type: 'module' }, null, 2),
  );
  // Peers at the versions in the repo's node_modules (the newest release of a peer may
  // not run on this Node), plus the types client-node's declarations refer to.
  const peerNames = [
    ...new Set(packedOk.flatMap((p) => Object.keys(p.pkg.peerDependencies ?? {}))),
  ];
  const peers = peerNames.map((name) =>
    clientNode2 && name === '@kubernetes/client-node'
      ? `${name}@^2.0.0`
      : `${name}@${installedVersion(name)}`,
  );
  if (peerNames.includes('@kubernetes/client-node')) peers.push('@types/ws@8');
  if (clientNode2) peers.push('node@24');
  const install = (mode) =>
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        mode,
        ...packedOk.map((p) => p.tarball),
        ...peers,
      ],
      project,
    );
  let installed =
    packedOk.length === 0 ? { ok: true } : install(clientNode2 ? '--prefer-online' : '--offline');
  if (!installed.ok) installed = install('--prefer-offline');
  if (!installed.ok) general.push(`npm install of the tarballs failed:\n${installed.out}`);

  if (installed.ok && packedOk.length > 0) {
    // 3. import() and require() each package, in node.
    const names = packedOk.map((p) => p.name);
    const calls = `{\n${names
      .filter((n) => CALLS[n])
      .map((n) => `  ${JSON.stringify(n)}: (m) => ${CALLS[n]},`)
      .join('\n')}\n}`;
    const body = (load, resolve, ext) => `const calls = ${calls};
const results = {};
for (const name of ${JSON.stringify(names)}) {
  const errors = [];
  try {
    const where = String(${resolve}).replaceAll('\\\\', '/');
    if (!where.includes('/node_modules/' + name + '/dist/') || !where.endsWith('${ext}')) errors.push('resolves to ' + where);
    const m = ${load};
    const exported = Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule');
    if (exported.length === 0) errors.push('has no exports');
    if (calls[name] && (await calls[name](m)) !== true) errors.push('its trivial call did not return true');
  } catch (e) {
    errors.push(String(e && e.stack ? e.stack : e).split('\\n').slice(0, 3).join('\\n'));
  }
  results[name] = errors;
}
console.log(JSON.stringify(results));
`;
    writeFileSync(
      path.join(project, 'smoke.mjs'),
      body('await import(name)', 'import.meta.resolve(name)', '.js'),
    );
    writeFileSync(
      path.join(project, 'smoke.cjs'),
      `(async () => {\n${body('require(name)', 'require.resolve(name)', '.cjs')}})();\n`,
    );
    for (const [label, file] of [
      ['import', 'smoke.mjs'],
      ['require', 'smoke.cjs'],
    ]) {
      // client-node 2 needs Node 24: the one installed in the project.
      const node = clientNode2
        ? path.join(project, 'node_modules', '.bin', 'node')
        : process.execPath;
      const r = run(node, [file], project);
      let results;
      try {
        results = JSON.parse(
          r.out
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .at(-1) ?? '',
        );
      } catch {
        general.push(`node ${file} failed:\n${r.out}`);
        continue;
      }
      for (const p of packedOk) {
        const errors = results[p.name] ?? ['not checked'];
        if (errors.length === 0) p.notes.push(`${label} ok`);
        else p.failures.push(...errors.map((e) => `${label}: ${e}`));
      }
    }

    // 4. Every command a package installs runs from the project (what `npx <bin>` runs).
    for (const p of packedOk) {
      for (const bin of Object.keys(p.pkg.bin ?? {})) {
        const script = path.join(project, 'node_modules', p.name, p.pkg.bin[bin]);
        const linked = path.join(project, 'node_modules', '.bin', bin);
        if (!existsSync(linked)) {
          p.failures.push(`bin ${bin}: not linked in node_modules/.bin`);
          continue;
        }
        const r = run(process.execPath, [script, '--help'], project);
        if (r.ok && /usage/i.test(r.out)) p.notes.push(`${bin} --help ok`);
        else p.failures.push(`bin ${bin} --help failed:\n${r.out}`);
      }
    }

    // 5. Type-check a consumer of every package, ESM and CJS, under node16 and bundler.
    mkdirSync(path.join(project, 'consumer'));
    for (const p of packedOk) {
      const source = `import * as pkg from '${p.name}';\nexport const exported: string[] = Object.keys(pkg);\n${TYPED[p.name] ?? ''}\n`;
      writeFileSync(path.join(project, 'consumer', `${p.dir}.ts`), source);
      writeFileSync(path.join(project, 'consumer', `${p.dir}.cts`), source);
    }
    const hasNodeTypes = existsSync(path.join(nodeTypes, 'node'));
    const cjsUnder = (p) => (esmOnlyPeer(p) ? 'node20' : 'node16');
    for (const [mode, options, files] of [
      [
        'node16',
        { module: 'node16', moduleResolution: 'node16' },
        (p) => [`${p.dir}.ts`, ...(cjsUnder(p) === 'node16' ? [`${p.dir}.cts`] : [])],
      ],
      [
        'node20',
        { module: 'node20', moduleResolution: 'node16' },
        (p) => (cjsUnder(p) === 'node20' ? [`${p.dir}.cts`] : []),
      ],
      ['bundler', { module: 'esnext', moduleResolution: 'bundler' }, (p) => [`${p.dir}.ts`]],
    ]) {
      const checked = packedOk.filter((p) => files(p).length > 0);
      if (checked.length === 0) continue;
      const tsconfig = {
        compilerOptions: {
          ...options,
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          lib: hasNodeTypes ? ['es2023'] : ['es2023', 'dom'],
          types: hasNodeTypes ? ['node'] : [],
          typeRoots: [nodeTypes],
        },
        files: checked.flatMap((p) => files(p).map((f) => `consumer/${f}`)),
      };
      writeFileSync(path.join(project, `tsconfig.${mode}.json`), JSON.stringify(tsconfig, null, 2));
      const r = run(process.execPath, [tsc, '-p', `tsconfig.${mode}.json`], project);
      if (r.ok) {
        for (const p of checked) p.notes.push(`types ${mode} ok`);
        continue;
      }
      if (!/error TS\d+/.test(r.out)) general.push(`tsc (${mode}) failed:\n${r.out}`);
      for (const line of r.out.split('\n').filter((l) => /error TS\d+/.test(l))) {
        const p = checked.find(
          (q) => line.includes(`consumer/${q.dir}.`) || line.includes(`node_modules/${q.name}/`),
        );
        (p ? p.failures : general).push(`types ${mode}: ${line.trim()}`);
      }
    }
  }
} catch (e) {
  general.push(String(e && e.stack ? e.stack : e));
} finally {
  if (process.env.KEEP_SMOKE) console.log(`pack-smoke: kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}

// ---- report ------------------------------------------------------------------------

const width = Math.max(...packages.map((p) => p.name.length));
for (const p of packages) {
  const ok = p.failures.length === 0 && general.length === 0;
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${p.name.padEnd(width)}  ${p.pkg.version}  ${p.notes.join(', ')}`,
  );
  for (const f of p.failures) console.log(`       ${f.replaceAll('\n', '\n       ')}`);
}
for (const g of general) console.log(`FAIL ${g}`);
const failed = packages.filter((p) => p.failures.length > 0).length;
if (failed > 0 || general.length > 0) {
  console.log(
    `pack-smoke: ${failed} of ${packages.length} packages failed${general.length > 0 ? `, ${general.length} other problems` : ''}`,
  );
  process.exitCode = 1;
} else {
  console.log(
    `pack-smoke: ${packages.length} packages packed, installed, imported, required, their commands run and type-checked${clientNode2 ? ' with @kubernetes/client-node 2 on Node 24' : ''}`,
  );
}
