// Headless Chromium for the site test. The machine's own browser comes first
// (CI installs Debian's `chromium`, see .ci/run); without one, @sparticuz/chromium
// carries a brotli-compressed chrome-headless-shell, its GL and NSS libraries
// and a font inside its registry tarball, so `npm ci` alone is enough. That
// package's own executablePath() unpacks to fixed /tmp paths and reuses
// whatever is there, even a half-written file from a killed run, and takes the
// NSS libraries from the system outside AWS; this unpacks into a folder named
// after the package version, atomically, and uses its own.
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import puppeteer, { type Browser } from 'puppeteer-core';

// The package exports no ./package.json; its root holds bin/ with the archives.
const packageDir = (() => {
  let dir = dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium'));
  while (!existsSync(join(dir, 'bin', 'chromium.br'))) {
    if (dirname(dir) === dir) throw new Error('@sparticuz/chromium has no bin/chromium.br');
    dir = dirname(dir);
  }
  return dir;
})();

const unbrotli = (archive: string, to: string) =>
  pipeline(
    createReadStream(join(packageDir, 'bin', archive)),
    createBrotliDecompress(),
    createWriteStream(to, { mode: 0o755 }),
  );

async function untar(archive: string, into: string): Promise<void> {
  mkdirSync(into, { recursive: true });
  const tarball = `${into}/.${archive}.tar`;
  await unbrotli(archive, tarball);
  const code = await new Promise<number | null>((resolve, reject) => {
    const tar = spawn('tar', ['-xf', tarball, '-C', into], { stdio: 'inherit' });
    tar.once('error', reject);
    tar.once('close', resolve);
  });
  await rm(tarball);
  if (code !== 0) throw new Error(`tar exited with ${code} unpacking ${archive}`);
}

/** The unpacked browser: binary, libraries and fonts in one folder per package version. */
export async function unpackChromium(): Promise<string> {
  const { version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const dir = join(tmpdir(), `kcm-ts-chromium-${version}`);
  if (existsSync(join(dir, 'chromium'))) return dir;
  const partial = `${dir}.${process.pid}.partial`;
  await rm(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  await Promise.all([
    unbrotli('chromium.br', join(partial, 'chromium')),
    // libEGL, libGLESv2 and SwiftShader are looked up next to the binary.
    untar('swiftshader.tar.br', partial),
    // lib/: NSS and expat, built for Amazon Linux 2023 (glibc 2.34), so they
    // load on any newer glibc.
    untar('al2023.tar.br', partial),
    untar('fonts.tar.br', join(partial, 'fonts')),
  ]);
  // The packaged fonts.conf names /tmp/fonts; point it at this copy.
  await writeFile(
    join(partial, 'fonts', 'fonts.conf'),
    [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      '<fontconfig>',
      `  <dir>${join(dir, 'fonts', 'fonts')}</dir>`,
      `  <cachedir>${join(dir, 'fonts-cache')}</cachedir>`,
      '</fontconfig>',
      '',
    ].join('\n'),
  );
  try {
    await rename(partial, dir);
  } catch (err) {
    // Another process unpacked the same version first: use its copy.
    await rm(partial, { recursive: true, force: true });
    if (!existsSync(join(dir, 'chromium'))) throw err;
  }
  return dir;
}

const commonArgs = [
  // Containers run tests as root, where Chromium's sandbox cannot start.
  '--no-sandbox',
  // A closed network: no background fetches to hosts the machine cannot reach.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Small or missing /dev/shm in some containers.
  '--disable-dev-shm-usage',
  // A tab that visits hundreds of pages would keep each in the
  // back/forward cache, and its renderer would grow past a gigabyte.
  '--disable-features=BackForwardCache',
];

const singleProcess = ['--no-zygote', '--single-process'];

/** The packaged chrome-headless-shell, unpacked next to its own libraries. */
async function launchPackaged(extra: readonly string[] = []): Promise<Browser> {
  const dir = await unpackChromium();
  return puppeteer.launch({
    executablePath: join(dir, 'chromium'),
    headless: 'shell',
    args: [
      ...commonArgs,
      ...extra,
      '--use-gl=angle',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--font-render-hinting=none',
    ],
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [join(dir, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      FONTCONFIG_PATH: join(dir, 'fonts'),
    },
  });
}

/** A browser installed on the machine (Debian's `chromium` package, or `$CHROMIUM`). */
function launchInstalled(executablePath: string, extra: readonly string[] = []): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: [...commonArgs, '--disable-gpu', '--disable-quic', ...extra],
  });
}

/**
 * Starts headless Chromium: the machine's own browser when it has one
 * (`$CHROMIUM`, else /usr/bin/chromium), else the one the npm package brought.
 * A browser that does not start on this machine is tried again in one
 * process, then passed over for the next; only when none starts does this
 * fail, naming why each did not.
 */
export async function launchChromium(): Promise<Browser> {
  const installed = [process.env.CHROMIUM, '/usr/bin/chromium'].filter(
    (path): path is string => !!path && existsSync(path),
  );
  const browsers: [string, (extra: readonly string[]) => Promise<Browser>][] = [
    ...installed.map((path): [string, (extra: readonly string[]) => Promise<Browser>] => [
      path,
      (extra) => launchInstalled(path, extra),
    ]),
    ['@sparticuz/chromium', launchPackaged],
  ];
  const failures: string[] = [];
  for (const [name, launch] of browsers) {
    // Each browser as it is, then in one process: where a container forbids
    // the zygote's namespaces or prctl calls, only that starts.
    for (const extra of [[], singleProcess]) {
      try {
        return await launch(extra);
      } catch (err) {
        const how = extra.length ? ` ${extra.join(' ')}` : '';
        failures.push(`${name}${how}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  throw new Error(`no headless Chromium would start on this machine:\n${failures.join('\n')}`);
}
