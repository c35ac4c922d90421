import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';

/**
 * The repository root, or the installed package's (package.json's `files` ships example/public), found from
 * this file whether it runs as example/*.ts or dist/example/*.js.
 */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'example', 'public'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find example/public above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * The page and its scripts: a fixed table of files (no request path reaches the file system), read once
 * and kept in memory. jQuery (copied from node_modules: an installed authkoa has no jQuery), the plugin and
 * authkoa/client's script-tag bundle come from the build (`npm run build`, dist/browser/).
 */
export async function mountStatic(router: Router): Promise<void> {
  const root = repoRoot();
  const files: Record<string, string> = {
    '/': join(root, 'example/public/index.html'),
    '/app.js': join(root, 'example/public/app.js'),
    '/two-step.js': join(root, 'example/public/two-step.js'),
    '/devices.js': join(root, 'example/public/devices.js'),
    '/tokens.js': join(root, 'example/public/tokens.js'),
    '/links.js': join(root, 'example/public/links.js'),
    '/events.js': join(root, 'example/public/events.js'),
    '/accounts.js': join(root, 'example/public/accounts.js'),
    '/style.css': join(root, 'example/public/style.css'),
    '/vendor/jquery.js': join(root, 'dist/browser/jquery.min.js'),
    '/vendor/jquery.rest.js': join(root, 'dist/browser/jquery.rest.js'),
    // window.authkoaClient ({ createAuthClient, AuthClientError }): authkoa/browser/client.global.js in an installed app.
    '/vendor/authkoa-client.js': join(root, 'dist/browser/client.global.js'),
  };
  for (const [path, file] of Object.entries(files)) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
    const body = await readFile(file);
    const type = TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';
    router.get(path, (ctx) => {
      ctx.type = type;
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = body;
    });
  }
}
