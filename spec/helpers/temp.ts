import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext, TestFn } from 'ava';

/**
 * A fresh folder in the OS temp dir, removed when the test ends (pass or fail), so runs leave no
 * authkoa-* folders behind. Call it before starting what uses the folder: ava runs teardowns
 * last-registered first, so servers, stores and children are closed before the folder goes.
 */
export function tempDir(t: ExecutionContext, prefix = 'authkoa-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A fresh folder for a whole test file (what `test.before` starts), removed once the file's tests and
 * its `after.always` hooks have run. ava runs a file's `after.always` hooks side by side, except that a
 * serial one waits for those declared before it: so declare this after the hooks that close what uses
 * the folder (an LMDB store, an app), and the folder goes only once they have finished.
 */
export function suiteTempDir(test: TestFn, prefix = 'authkoa-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  test.serial.after.always(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Runs `use` with a fresh folder under `parent` (the OS temp dir unless given) and removes the folder
 * when `use` settles, whatever it did: for work that belongs to no one test, such as a certificate made
 * once per process, or a build made beside dist/ (one filesystem, so it can be renamed into place).
 */
export async function withTempDir<T>(prefix: string, use: (dir: string) => Promise<T>, parent = tmpdir()): Promise<T> {
  const dir = await mkdtemp(join(parent, prefix));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
