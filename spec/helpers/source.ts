import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Running a TypeScript file of the repository, in a child process or by a dynamic import, the way the test
 * itself runs. `npm test` runs the copy of the repository scripts/build-suite.mjs compiled into .tmp/suite/
 * (ava.suite.config.js sets AUTHKOA_SUITE to it): a child then runs the file's compiled twin with plain node,
 * which starts in a fraction of the time tsx takes. A file run from its source (`npx ava spec/x.test.ts`) starts
 * its children under tsx, as before.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITE = process.env.AUTHKOA_SUITE;

/** The compiled twin of `file` (absolute, or relative to the repository root), when the suite's copy has one. */
function compiled(file: string): string | undefined {
  if (!SUITE || !file.endsWith('.ts')) return undefined;
  const js = join(SUITE, relative(ROOT, resolve(ROOT, file))).replace(/\.ts$/, '.js');
  return existsSync(js) ? js : undefined;
}

/** The node arguments that run `file`: its compiled twin, or the source under tsx. */
export function nodeArgs(file: string): string[] {
  const js = compiled(file);
  return js ? [js] : ['--import=tsx', file];
}

/** `fork()`'s module and `execArgv` for `file`, by the same rule. */
export function forkTarget(file: string): { modulePath: string; execArgv: string[] } {
  const js = compiled(file);
  return js ? { modulePath: js, execArgv: [] } : { modulePath: file, execArgv: ['--import=tsx'] };
}

/**
 * Imports a TypeScript file that is not part of the compiled copy (one a test wrote, or a source whose own module
 * a test inspects): through tsx's scoped import when the test runs compiled, so only that file's imports are hooked.
 */
export async function importSource<T>(file: string): Promise<T> {
  const url = pathToFileURL(file).href;
  if (!SUITE) return (await import(url)) as T;
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(url, import.meta.url)) as T;
}
