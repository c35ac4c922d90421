/**
 * The package as npm publishes it, for the tests that use it as a user would: `npm pack` of the built
 * dist/ (spec/package/consume.test.ts installs it by the guides' commands; spec/package/demo.test.ts runs the
 * demo from it), and a consumer folder with the tarball installed, kept between runs in the git-ignored
 * spec/.cache/.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureBrowserBundle } from './browser.js';
import { ensureLibBuild } from './build.js';

const run = promisify(execFile);
export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE = join(root, 'spec', '.cache');

/** The environment of a user's npm: the outer `npm test` leaks its npm_* settings, which the consumer's npm must not see. */
export const userEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')),
);

/** Runs npm in `cwd` as a user would, quiet; resolves with its stdout. */
export async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd,
    env: userEnv,
    maxBuffer: 16 << 20,
  });
  return stdout;
}

/**
 * Packs the package into `dir` and returns the tarball's path. dist/ is built first when it is missing
 * (a fresh clone before `npm run build`), as `npm pack` would otherwise pack nothing worth testing.
 */
export async function packTarball(dir: string): Promise<string> {
  await Promise.all([ensureLibBuild(), ensureBrowserBundle()]);
  const packed = JSON.parse(await npm(['pack', '--json', '--pack-destination', dir], root)) as { filename: string }[];
  return join(dir, packed[0]!.filename);
}

/**
 * Installs `tarball` and `others` into the empty folder `dir` by `npm install <npmArgs> <tarball> <others>`.
 * `dir` must lie outside the repository: Node resolves packages up the folder tree, so a consumer under it
 * would load the repository's own node_modules (every optional and dev package). The installed folder is
 * kept under spec/.cache/<name>/ with the key of what it holds (the tarball's sha-256, the arguments, Node's
 * version) and copied from there: the same tarball again needs no npm at all; another one is installed over
 * the packages already there, so npm replaces authkoa and fetches nothing else. One test file uses one name.
 */
export async function installConsumer(
  name: string,
  tarball: string,
  npmArgs: string[],
  others: string[],
  dir: string,
): Promise<void> {
  const cached = join(CACHE, name);
  const key = createHash('sha256')
    .update(await readFile(tarball))
    .update(JSON.stringify([npmArgs, others, process.version]))
    .digest('hex');
  const keyFile = '.installed';
  const copy = (from: string, to: string) => cp(from, to, { recursive: true, verbatimSymlinks: true });
  if (existsSync(join(cached, 'package.json'))) await copy(cached, dir);
  else await mkdir(dir, { recursive: true });
  if (existsSync(join(dir, keyFile)) && (await readFile(join(dir, keyFile), 'utf8')) === key) return;
  await rm(join(dir, keyFile), { force: true });
  if (!existsSync(join(dir, 'package.json')))
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: `consumer-${name}`, version: '1.0.0', private: true }),
    );
  // Named by content: a new tarball is a new dependency spec, which npm cannot take for the one it has.
  const local = `authkoa-${key.slice(0, 16)}.tgz`;
  await copyFile(tarball, join(dir, local));
  await npm(['install', ...npmArgs, `./${local}`, ...others], dir);
  for (const f of await readdir(dir))
    if (f.startsWith('authkoa-') && f.endsWith('.tgz') && f !== local) await rm(join(dir, f));
  await writeFile(join(dir, keyFile), key);
  // Into place in one step: a run stopped half-way leaves the previous copy, never half of one.
  const next = `${cached}.${process.pid}`;
  await mkdir(CACHE, { recursive: true });
  await rm(next, { recursive: true, force: true });
  await copy(dir, next);
  await rm(cached, { recursive: true, force: true });
  await rename(next, cached);
}
