// A static server for the built site, as a host serves it: files by path,
// index.html for a folder, 404 for anything else, content types the browser
// trusts (an SVG sent as text/plain would not render as an image).
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
};

export interface StaticSite {
  /** `http://127.0.0.1:<port>/` */
  origin: string;
  close(): Promise<void>;
}

/** Serves `root` on 127.0.0.1 at a free port. */
export async function serveStatic(root: string): Promise<StaticSite> {
  const server: Server = createServer((req, res) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat?.isDirectory()) file = join(file, 'index.html');
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${path}`);
      return;
    }
    // Files TypeDoc copies from the chapters (examples' .ts sources) are text.
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'text/plain; charset=utf-8',
      // Every page loads the same scripts: cached, Chromium compiles them once.
      'cache-control': 'max-age=3600',
    });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
