/**
 * When `npm run build` (scripts/build.mjs) skips a part: the decision of scripts/stamp.mjs on a scratch tree,
 * with every file's time set by hand. A part runs again after any source changed, appeared or went away, or an
 * output went missing; a file saved while the part ran counts as changed, since the mark is the start.
 */
import test from 'ava';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.js';
// @ts-expect-error: a plain .mjs script of the build, without type declarations
import { filesUnder, orphanOutputs, staleReason, writeStamp } from '../../scripts/stamp.mjs';

const STARTED = Date.UTC(2030, 0, 1);
const before = new Date(STARTED - 60_000);
const after = new Date(STARTED + 1);
const STAMP = 'dist/.build/part.json';

type Stale = (root: string, stamp: string, inputs: string[], outputs: string[]) => Promise<string>;
const stale = staleReason as Stale;
type Orphans = (root: string, dirs: string[]) => Promise<string[]>;

/** A tree with two sources and their outputs, all older than the build's start, and the build's stamp. */
async function built(t: Parameters<typeof tempDir>[0]): Promise<string> {
  const root = tempDir(t, 'authkoa-build-stamp-');
  await mkdir(join(root, 'src/sub'), { recursive: true });
  await mkdir(join(root, 'dist/sub'), { recursive: true });
  for (const f of ['src/a.ts', 'src/sub/b.ts', 'dist/a.js', 'dist/sub/b.js']) {
    await writeFile(join(root, f), f);
    await utimes(join(root, f), before, before);
  }
  await writeStamp(root, STAMP, STARTED, ['src/a.ts', 'src/sub/b.ts']);
  return root;
}

const INPUTS = ['src/a.ts', 'src/sub/b.ts'];
const OUTPUTS = ['dist/a.js', 'dist/sub/b.js'];

test('a part never built runs; once built, with nothing changed, it is up to date', async (t) => {
  const root = await built(t);
  t.is(await stale(root, 'dist/.build/other.json', INPUTS, OUTPUTS), 'never built');
  t.is(await stale(root, STAMP, INPUTS, OUTPUTS), '');
  t.deepEqual(((await filesUnder(root, 'src', ['.ts'])) as string[]).sort(), INPUTS);
});

test('a source changed after the build started (even while it ran) makes it run again', async (t) => {
  const root = await built(t);
  await utimes(join(root, 'src/sub/b.ts'), after, after);
  t.is(await stale(root, STAMP, INPUTS, OUTPUTS), 'src/sub/b.ts changed');
  await utimes(join(root, 'src/sub/b.ts'), new Date(STARTED), new Date(STARTED));
  t.is(
    await stale(root, STAMP, INPUTS, OUTPUTS),
    'src/sub/b.ts changed',
    'saved in the very millisecond the build started',
  );
});

test('a new source, a source gone or an output gone makes it run again', async (t) => {
  const root = await built(t);
  await writeFile(join(root, 'src/c.ts'), 'c');
  await utimes(join(root, 'src/c.ts'), before, before); // moved in with an old time, as `mv` keeps it
  t.is(await stale(root, STAMP, [...INPUTS, 'src/c.ts'], OUTPUTS), 'src/c.ts is new');
  await rm(join(root, 'src/sub/b.ts'));
  t.is(await stale(root, STAMP, ['src/a.ts'], ['dist/a.js']), 'src/sub/b.ts is gone');
  const root2 = await built(t);
  await rm(join(root2, 'dist/sub/b.js'));
  t.is(await stale(root2, STAMP, INPUTS, OUTPUTS), 'dist/sub/b.js is missing');
});

test("a file the part read besides its listed sources (a bundle's import) is checked too", async (t) => {
  const root = await built(t);
  await writeFile(join(root, 'shared.ts'), 's');
  await utimes(join(root, 'shared.ts'), before, before);
  await writeStamp(root, STAMP, STARTED, [...INPUTS, 'shared.ts']);
  t.is(await stale(root, STAMP, INPUTS, OUTPUTS), '');
  await utimes(join(root, 'shared.ts'), after, after);
  t.is(await stale(root, STAMP, INPUTS, OUTPUTS), 'shared.ts changed');
});

test('outputs of a source that is gone are found for the build to delete; those of a source still there are not', async (t) => {
  const root = tempDir(t, 'authkoa-build-orphans-');
  await mkdir(join(root, 'lib/sub'), { recursive: true });
  await mkdir(join(root, 'dist/lib/sub'), { recursive: true });
  await writeFile(join(root, 'lib/sub/kept.ts'), '');
  const kept = ['dist/lib/sub/kept.js', 'dist/lib/sub/kept.d.ts', 'dist/lib/sub/kept.js.map'];
  const moved = ['dist/lib/moved.js', 'dist/lib/moved.d.ts', 'dist/lib/moved.js.map'];
  for (const f of [...kept, ...moved]) await writeFile(join(root, f), '');
  const orphans = (await (orphanOutputs as Orphans)(root, ['lib', 'bin'])).sort();
  t.deepEqual(orphans, [...moved].sort(), 'a directory never built (bin) holds none');
});
