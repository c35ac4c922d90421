import test from 'ava';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ResizePool } from '../../lib/avatar/pool.js';
import { ensureLibBuild } from '../helpers/build.js';
import { tempDir } from '../helpers/temp.js';
import { dimensions, palettePng } from './helpers.js';

const root = join(import.meta.dirname, '..', '..');

test('the pool resizes in a worker under tsx and survives a bad job', async (t) => {
  const pool = new ResizePool(1);
  await t.throwsAsync(pool.resize(Buffer.from('not an image'), 10));
  t.deepEqual(await dimensions(await pool.resize(palettePng(64, 32), 16)), [16, 8]);
  t.is(pool.pending, 0);
  await pool.close();
  await t.throwsAsync(pool.resize(palettePng(4, 4), 2), { message: /closed/ });
});

test('a job over its time limit kills the worker and the next job gets a fresh one', async (t) => {
  const pool = new ResizePool(1, 1);
  await t.throwsAsync(pool.resize(palettePng(2000, 2000), 10), { message: /timed out/ });
  await pool.close();
});

// The compiled package loads worker.js, not worker.ts: checked on dist/ (npm test always builds first;
// a bare `npx ava` run compiles the library here, safely beside other files doing the same).
const built = join(root, 'dist', 'lib', 'avatar', 'pool.js');
test('the compiled pool (dist/) starts its worker without tsx', async (t) => {
  t.timeout(5 * 60_000); // compiling the library on a fresh clone takes a while on a loaded machine
  await ensureLibBuild();
  const script = `
    import { ResizePool } from ${JSON.stringify(pathToFileURL(built).href)};
    const pool = new ResizePool(1);
    const png = Buffer.from(${JSON.stringify(palettePng(40, 20).toString('base64'))}, 'base64');
    const out = await pool.resize(png, 10);
    console.log(out.readUInt32BE(16) + 'x' + out.readUInt32BE(20));
    await pool.close();`;
  const dir = tempDir(t, 'authkoa-dist-');
  writeFileSync(join(dir, 'check.mjs'), script);
  const out = execFileSync(process.execPath, [join(dir, 'check.mjs')], { cwd: root, encoding: 'utf8' });
  t.is(out.trim(), '10x5');
});
