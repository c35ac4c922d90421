/**
 * The compiled library (dist/lib, dist/bin, dist/example) for the tests that run what a user installs.
 * `npm test` builds first; a bare `npx ava` on a fresh clone has no dist/, so these tests build it
 * themselves. Several test files (each its own process) may ask at once: each compiles into a private
 * folder under dist/ and renames the top-level folders into place, so no test ever sees a half-written
 * dist/lib; a folder another process put there first is kept and the copy thrown away.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { withTempDir } from './temp.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'dist');

/** What the tests load from dist/: the package entry, the worker the pool starts, the CLI and the demo. */
const NEEDED = [
  'lib/index.js',
  'lib/verify/index.js',
  'lib/avatar/pool.js',
  'lib/avatar/worker.js',
  'bin/authctl.js',
  'example/app.js',
];

const missing = () => NEEDED.filter((f) => !existsSync(join(dist, f)));

let building: Promise<void> | undefined;

/** Resolves once dist/ holds the compiled library, CLI and demo, compiling them (tsc) when missing. */
export function ensureLibBuild(): Promise<void> {
  building ??= build();
  return building;
}

async function build(): Promise<void> {
  if (missing().length === 0) return;
  await mkdir(dist, { recursive: true });
  let output = '';
  await withTempDir(
    '.lib-build-',
    async (tmp) => {
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      // tsc emits even when another file has a type error (exit code 2): what matters is what it wrote.
      // Not incremental: tsconfig.build.json's state file describes what `npm run build` wrote into dist/.
      await promisify(execFile)(
        process.execPath,
        [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', tmp, '--incremental', 'false'],
        { cwd: root, maxBuffer: 16 << 20 },
      ).catch((err: { stdout?: string; message: string }) => void (output = err.stdout || err.message));
      for (const top of await readdir(tmp)) {
        await rename(join(tmp, top), join(dist, top)).catch((err: NodeJS.ErrnoException) => {
          // Another test process renamed its build into place first: keep that one.
          if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
        });
      }
    },
    dist,
  );
  const left = missing();
  if (left.length > 0)
    throw new Error(`building dist/ left out ${left.join(', ')}${output ? `; tsc said:\n${output}` : ''}`);
}
