import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';

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
