/** The shape of lib/ that docs/architecture.md describes: small files, few at the top, no import circle. */
import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const lib = join(import.meta.dirname, '..', '..', 'lib');

function sources(dir = lib): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * Every relative module a file imports: static imports and re-exports (type-only ones included) and the
 * dynamic `import()`s of the lazy loaders, which are a dependency too, only a later one.
 */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  const specifiers = [
    ...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ];
  for (const m of specifiers) found.push(normalize(join(dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
  return found;
}

/** Import circles in a graph of file → files it imports, each as the list of files around it. */
function circles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const d of graph.get(f)!) {
      if (state.get(d) === 'open') found.push([...stack.slice(stack.indexOf(d)), d].map((p) => relative(lib, p)));
      else if (!state.has(d) && graph.has(d)) visit(d);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

test('no import circle in lib/, type-only and dynamic imports included', (t) => {
  const files = sources();
  t.true(files.length > 50 && imports(join(lib, 'service.ts')).length > 5, 'the files and their imports were found');
  t.true(
    imports(join(lib, 'providers', 'core', 'kinds.ts')).includes(join(lib, 'providers', 'direct.ts')),
    'dynamic imports are edges too',
  );
  t.deepEqual(
    circles(new Map(files.map((f) => [f, imports(f)]))).map((c) => c.join(' -> ')),
    [],
  );
});

test('the circle check reports a circle when there is one, and only then', (t) => {
  const at = (n: string) => join(lib, n);
  t.deepEqual(
    circles(
      new Map([
        [at('a.ts'), [at('b.ts')]],
        [at('b.ts'), [at('c.ts')]],
        [at('c.ts'), [at('a.ts')]],
      ]),
    ),
    [['a.ts', 'b.ts', 'c.ts', 'a.ts']],
  );
  t.deepEqual(
    circles(
      new Map([
        [at('a.ts'), [at('b.ts')]],
        [at('b.ts'), [at('c.ts')]],
        [at('c.ts'), []],
      ]),
    ),
    [],
  );
});

test('no file in lib/ is over 300 lines, and lib/ has at most 10 files at the top', (t) => {
  const long = sources()
    .map((f) => [relative(lib, f), readFileSync(f, 'utf8').split('\n').length] as const)
    .filter(([, n]) => n > 300);
  t.deepEqual(long, []);
  const top = readdirSync(lib).filter((n) => n.endsWith('.ts'));
  t.true(top.length <= 10, top.join(', '));
});

/**
 * The built-in features' folders, read from the feature table itself (core/features.ts imports each row from its
 * folder's index.ts), so a built-in added there is guarded here without editing this test.
 */
const TABLE = join(lib, 'core', 'features.ts');
const FEATURE_FOLDERS = [
  ...readFileSync(TABLE, 'utf8').matchAll(/^import \{ \w+ \} from '\.\.\/([\w-]+)\/index\.js';/gm),
].map((m) => m[1]!);
/** The files outside a feature's folder that may name it: the table, and the public types and entry. */
const MAY_NAME_FEATURES = ['core/features.ts', 'index.ts', 'options/types.ts', 'instance.ts'];

/** The files outside `folder` (relative to lib/) that import from it. */
function importersOf(folder: string): string[] {
  const inside = (f: string) => relative(join(lib, folder), f).split(/[\\/]/)[0] !== '..';
  return sources()
    .filter((f) => !inside(f) && imports(f).some(inside))
    .map((f) => relative(lib, f))
    .sort();
}

test('the feature folders are read from the table: one for each of its rows', async (t) => {
  const { BUILT_IN_FEATURES } = await import('../../lib/core/features.js');
  t.is(FEATURE_FOLDERS.length, BUILT_IN_FEATURES.length, FEATURE_FOLDERS.join(', '));
  t.true(FEATURE_FOLDERS.includes('mfa') && FEATURE_FOLDERS.includes('sessions'), FEATURE_FOLDERS.join(', '));
});

test('each built-in feature is imported outside its folder only by the feature table and the public types', (t) => {
  for (const folder of FEATURE_FOLDERS) {
    const others = importersOf(folder).filter((f) => !MAY_NAME_FEATURES.includes(f));
    t.deepEqual(others, [], `${folder} (lib/${folder}/) is imported by ${others.join(', ')}`);
  }
});

test('the feature rule sees an import: the table imports every feature folder', (t) => {
  for (const folder of FEATURE_FOLDERS) t.true(importersOf(folder).includes('core/features.ts'), folder);
});

/** A file's room: its folder under lib/ (`accounts`), or the file itself at the top (`service.ts`). */
const roomOf = (file: string) => relative(lib, file).split(/[\\/]/)[0]!;

/** The imports between rooms that stand in a circle of rooms, as `from -> to` with the files that make them. */
function upwardImports(graph: Map<string, string[]>): string[] {
  const rooms = new Map<string, Set<string>>();
  for (const [f, deps] of graph)
    for (const d of deps)
      if (roomOf(f) !== roomOf(d))
        (rooms.get(roomOf(f)) ?? rooms.set(roomOf(f), new Set()).get(roomOf(f))!).add(roomOf(d));
  const reaches = (from: string, to: string) => {
    const seen = new Set([from]);
    const todo = [from];
    while (todo.length > 0)
      for (const next of rooms.get(todo.pop()!) ?? []) {
        if (next === to) return true;
        if (!seen.has(next)) (seen.add(next), todo.push(next));
      }
    return false;
  };
  const found: string[] = [];
  for (const [f, deps] of graph)
    for (const d of deps)
      if (roomOf(f) !== roomOf(d) && reaches(roomOf(d), roomOf(f)))
        found.push(`${relative(lib, f)} -> ${relative(lib, d)}`);
  return found;
}

test('no import runs back up: the folders of lib/ (and its top files) import each other in no circle', (t) => {
  const files = sources();
  t.deepEqual(upwardImports(new Map(files.map((f) => [f, imports(f)]))), []);
});

test('the upward check sees a circle of folders, and only then', (t) => {
  const at = (n: string) => join(lib, n);
  const layered = new Map([
    [at('a/x.ts'), [at('b/y.ts')]],
    [at('b/y.ts'), [at('c.ts')]],
    [at('c.ts'), []],
  ]);
  t.deepEqual(upwardImports(layered), []);
  layered.set(at('c.ts'), [at('a/z.ts')]);
  layered.set(at('a/z.ts'), []);
  t.deepEqual(upwardImports(layered), ['a/x.ts -> b/y.ts', 'b/y.ts -> c.ts', 'c.ts -> a/z.ts']);
});
