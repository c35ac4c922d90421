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
 * The built-in features, each with its folder: a feature is known outside its folder only by the files
 * the rule allows (issue #46: the feature table, the public types and entry), so adding or removing one
 * touches its folder and a line there, not the rest of lib/.
 */
const FEATURE_FOLDERS = {
  mfa: 'mfa',
  sessions: 'sessions',
  jwks: 'jwks',
  accounts: 'accounts',
  ssf: 'ssf',
};
const MAY_NAME_FEATURES = ['features/table.ts', 'index.ts', 'options/types.ts'];
/**
 * A feature that brings a provider kind (accounts: `password`) is named by the kind table too, and its
 * kind's options by the typed provider entries, as a built-in kind's are.
 */
const MAY_NAME_KINDS: Partial<Record<keyof typeof FEATURE_FOLDERS, string[]>> = {
  accounts: ['providers/core/kinds.ts', 'providers/core/entries.ts'],
};

/** The files outside `folder` (relative to lib/) that import from it. */
function importersOf(folder: string): string[] {
  const inside = (f: string) => relative(join(lib, folder), f).split(/[\\/]/)[0] !== '..';
  return sources()
    .filter((f) => !inside(f) && imports(f).some(inside))
    .map((f) => relative(lib, f))
    .sort();
}

test('each built-in feature is imported outside its folder only by the feature table and the public types', (t) => {
  for (const [name, folder] of Object.entries(FEATURE_FOLDERS)) {
    const allowed = [...MAY_NAME_FEATURES, ...(MAY_NAME_KINDS[name as keyof typeof FEATURE_FOLDERS] ?? [])];
    const others = importersOf(folder).filter((f) => !allowed.includes(f));
    t.deepEqual(others, [], `${name} (lib/${folder}/) is imported by ${others.join(', ')}`);
  }
});

test('the feature rule sees an import: the table imports every feature folder', (t) => {
  for (const folder of Object.values(FEATURE_FOLDERS))
    t.true(importersOf(folder).includes('features/table.ts'), folder);
});
