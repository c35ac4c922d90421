/**
 * docs/architecture.md against the code: every path it names exists, every folder of lib/ and every file at its top
 * is named, and each count, layer and import claim it makes is computed here from lib/ and compared. A claim the
 * document makes and this file does not check is one to remove from the document.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');
const LIB = join(ROOT, 'lib');
const DOC = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
/** The document without its fenced examples: code written for an application, not paths of this repository. */
const PROSE = DOC.replace(/^```[\s\S]*?^```/gm, '');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? [p + '/', ...walk(p)] : [p];
  });
}
const LIB_ENTRIES = walk(LIB);
const SOURCES = LIB_ENTRIES.filter((p) => p.endsWith('.ts'));
const FOLDERS = LIB_ENTRIES.filter((p) => p.endsWith('/'));
const rel = (p: string) => relative(LIB, p) + (p.endsWith('/') ? '/' : '');

/** `a/{b,c}.ts` → `a/b.ts`, `a/c.ts`. */
function expand(token: string): string[] {
  const m = /\{([^{}]*)\}/.exec(token);
  if (!m) return [token];
  return m[1]!
    .split(',')
    .flatMap((part) => expand(token.slice(0, m.index) + part + token.slice(m.index + m[0].length)));
}

/** A backticked token that names a file or folder of the repository (not a package subpath, a URL, a value). */
const PATHLIKE = /^[\w.\-/{},*]+$/;
const isPath = (t: string) =>
  PATHLIKE.test(t) &&
  !t.startsWith('dist/') &&
  !t.startsWith('.') &&
  (/\.(ts|mjs|js|md)$/.test(t) || (t.endsWith('/') && t.length > 1));

/** Files under a folder with a name, at any depth. */
function named(dir: string, name: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => basename(p) === name.replace(/\/$/, ''))
    .map((p) => join(dir, p) + (name.endsWith('/') ? '/' : ''));
}

/**
 * Where a path the document names is: beside the folder of the paragraph or row naming it (a `**\`lib/x/\`**`
 * paragraph, a row of a table whose first cell is a folder), beside the path named before it on the line (`links/`
 * then `service.ts`; `spec/stores/plugin/json-store.mjs` then `register.mjs`), anywhere under the paragraph's folder
 * for a bare file name, under lib/, or at the repository's root.
 */
function resolvePath(token: string, homes: string[], before: string | undefined): string | undefined {
  const plain = token.replace(/\/\*$/, '/').replace(/\*$/, '');
  const at = (base: string) => {
    const p = join(base, plain).replace(/\/$/, '');
    if (existsSync(p) && (!plain.endsWith('/') || statSync(p).isDirectory()))
      return p + (plain.endsWith('/') ? '/' : '');
    return undefined;
  };
  const beside = before && (before.endsWith('/') ? before : dirname(before));
  const bare = !plain.slice(0, -1).includes('/');
  for (const base of homes) if (at(base)) return at(base);
  if (beside && at(beside)) return at(beside);
  if (bare && named(homes[0]!, plain)[0]) return named(homes[0]!, plain)[0];
  return at(LIB) ?? at(ROOT);
}

interface Mention {
  line: number;
  token: string;
  found: string | undefined;
}

/** Every path the document names, with where it was found (undefined: nowhere). */
function mentions(): Mention[] {
  const found: Mention[] = [];
  let home = LIB;
  PROSE.split('\n').forEach((text, i) => {
    if (/^#{1,6} /.test(text)) home = LIB;
    const heading = /^\*\*`lib\/([\w\-/]*)`/.exec(text);
    if (heading) home = join(LIB, heading[1]!);
    // A table row whose first cell is a folder (`bin/`, `oauth2/`): its paths are that folder's.
    const row = /^\| `([\w-]+\/)` \|/.exec(text);
    const rowHome = row && resolvePath(row[1]!, [home], undefined);
    let before: string | undefined;
    for (const [, raw] of text.matchAll(/`([^`\n]+)`/g)) {
      if (!isPath(raw!)) continue;
      for (const token of expand(raw!)) {
        const where = resolvePath(token, rowHome ? [rowHome, home] : [home], before);
        found.push({ line: i + 1, token, found: where });
        if (where) before = where;
      }
    }
  });
  return found;
}

test('every path docs/architecture.md names exists', (t) => {
  const all = mentions();
  t.true(all.length > 300, `${all.length} paths`);
  t.deepEqual(
    all.filter((m) => !m.found).map((m) => `line ${m.line}: ${m.token}`),
    [],
  );
});

test('docs/architecture.md names every folder of lib/, every file at its top and every file of lib/', (t) => {
  const named = new Set(mentions().flatMap((m) => (m.found ? [m.found] : [])));
  const top = SOURCES.filter((f) => dirname(f) === LIB);
  t.true(top.length > 5 && FOLDERS.length > 20);
  t.deepEqual([...FOLDERS, ...top].filter((p) => !named.has(p)).map(rel), []);
  t.deepEqual(SOURCES.filter((f) => !named.has(f)).map(rel), []);
});

// --- imports -------------------------------------------------------------------------------------------------

/** Every relative module a file imports, as spec/core/structure.test.ts reads them (type-only and dynamic too). */
function imports(file: string, text = readFileSync(file, 'utf8')): string[] {
  const specifiers = [
    ...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
    ...text.matchAll(/^import\s+'(\.[^']+)'/gm),
  ];
  return specifiers.map((m) => normalize(join(dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
}

/** A file's room: its folder at the top of lib/ (`accounts`), or the file itself (`service.ts`). */
const roomOf = (file: string) => relative(LIB, file).split(/[\\/]/)[0]!;

/** Room → the rooms it imports. */
function roomGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const f of SOURCES) {
    const from = graph.get(roomOf(f)) ?? graph.set(roomOf(f), new Set()).get(roomOf(f))!;
    for (const d of imports(f)) if (roomOf(d) !== roomOf(f)) from.add(roomOf(d));
  }
  return graph;
}

/** Each room's layer: 0 for one that imports no other, else one above the highest room it imports. */
function layers(graph: Map<string, Set<string>>): Map<string, number> {
  const layer = new Map<string, number>();
  const of = (room: string, path: string[] = []): number => {
    if (layer.has(room)) return layer.get(room)!;
    if (path.includes(room)) throw new Error(`rooms in a circle: ${[...path, room].join(' -> ')}`);
    let l = 0;
    for (const d of graph.get(room) ?? []) l = Math.max(l, of(d, [...path, room]) + 1);
    layer.set(room, l);
    return l;
  };
  for (const room of graph.keys()) of(room);
  return layer;
}

/** The layer table of section 1: `| 3 | `http/` |` rows, each room as `x/` (a folder) or `x.ts` (a top file). */
function documentedLayers(): Map<string, number> {
  const table = /^\| Layer \| Folders and files.*\n\|[-| ]+\n((?:\| \d+ \|.*\n)+)/m.exec(PROSE);
  if (!table) return new Map();
  const found = new Map<string, number>();
  for (const [, n, rooms] of table[1]!.matchAll(/^\| (\d+) \| ([^|]+) \|/gm))
    for (const [, room] of rooms!.split('(')[0]!.matchAll(/`([\w.-]+)\/?`/g)) found.set(room!, Number(n));
  return found;
}

test("the layers of lib/ are as the document's table lists them, from the bottom up", (t) => {
  const computed = layers(roomGraph());
  const documented = documentedLayers();
  t.true(documented.size > 20, 'the layer table was found');
  t.deepEqual(Object.fromEntries([...documented].sort()), Object.fromEntries([...computed].sort()));
  t.true(/^\| 0 \|/m.test(PROSE) && [...computed.values()].includes(0));
});

/** The files outside `room` (a folder, or a file at the top) that import it. */
function importersOf(room: string): string[] {
  return SOURCES.filter((f) => roomOf(f) !== room && imports(f).some((d) => roomOf(d) === room))
    .map((f) => relative(LIB, f))
    .sort();
}

/** What the files of a room import from outside it. */
function importedBy(room: string): string[] {
  const found = new Set<string>();
  for (const f of SOURCES) if (roomOf(f) === room) for (const d of imports(f)) if (roomOf(d) !== room) found.add(d);
  return [...found].map((d) => relative(LIB, d)).sort();
}

/** The built-in features' folders, in the table's order: core/features.ts imports each row from its folder's index.ts. */
const TABLE = readFileSync(join(LIB, 'core', 'features.ts'), 'utf8');
const FOLDER_OF = new Map(
  [...TABLE.matchAll(/^import \{ (\w+) \} from '\.\.\/([\w-]+)\/index\.js';/gm)].map((m) => [m[1]!, m[2]!]),
);
const FEATURE_FOLDERS = (/const BUILT_INS = \[([^\]]*)\]/.exec(TABLE)?.[1] ?? '')
  .split(',')
  .map((row) => FOLDER_OF.get(row.trim())!);

/**
 * Claims about imports: each as the document words it (the test fails when the words go, so a claim is not left
 * unchecked), and the imports that break it, which must be none.
 */
const IMPORT_CLAIMS: ReadonlyArray<readonly [words: string, breaking: () => string[]]> = [
  [
    // registry.ts
    'Only `index.ts` imports it',
    () => importersOf('registry.ts').filter((f) => f !== 'index.ts'),
  ],
  [
    '`lib/options/` is imported only by `core/`, `service.ts`, `instance.ts` and `index.ts`',
    () => importersOf('options').filter((f) => !/^(core\/|service\.ts$|instance\.ts$|index\.ts$)/.test(f)),
  ],
  [
    'it imports only `session/{jws,jwt,payload,claims,signing}.ts`, `http/client.ts`, `util/duration.ts`, `errors.ts` and `user.ts`',
    () => {
      const allowed = ['session/jws.ts', 'session/jwt.ts', 'session/payload.ts', 'session/claims.ts'];
      allowed.push('session/signing.ts', 'http/client.ts', 'util/duration.ts', 'errors.ts', 'user.ts');
      return importedBy('verify').filter((f) => !allowed.includes(f));
    },
  ],
  [
    '`lib/outbox/`** (the outbox the webhooks and the Shared Signals transmitter share; it imports only `state/`)',
    () => importedBy('outbox').filter((f) => !f.startsWith('state/')),
  ],
  [
    // postgres/
    'It imports only `util/connections.ts`',
    () => importedBy('postgres').filter((f) => f !== 'util/connections.ts'),
  ],
  [
    'a built-in feature is imported outside its folder only by the table (`core/features.ts`), the option types (`options/types.ts`), `index.ts` and `instance.ts`',
    () =>
      FEATURE_FOLDERS.flatMap((folder) =>
        importersOf(folder)
          .filter((f) => !['core/features.ts', 'options/types.ts', 'index.ts', 'instance.ts'].includes(f))
          .map((f) => `${f} -> ${folder}/`),
      ),
  ],
];

test('each import claim of the document holds', (t) => {
  t.true(FEATURE_FOLDERS.length > 5, FEATURE_FOLDERS.join(', '));
  for (const [words, breaking] of IMPORT_CLAIMS) {
    t.true(DOC.includes(words), `the document no longer says: ${words}`);
    t.deepEqual(breaking(), [], words);
  }
});

test('the import checks see an import: service.ts imports core/, and registry.ts is imported', (t) => {
  t.true(importedBy('service.ts').includes('core/features.ts'));
  t.deepEqual(importersOf('registry.ts'), ['index.ts']);
  t.true(importedBy('verify').includes('session/jws.ts'));
});

// --- counts ----------------------------------------------------------------------------------------------------

/**
 * The modules of lib/ a bare `import 'authkoa'` loads: the static imports reachable from index.ts once TypeScript
 * has removed those of types only (transpiled one file at a time, as tsc emits dist/: an import whose names are all
 * used as types goes, a dynamic `import()` is not followed).
 */
function bareImport(): Set<string> {
  const seen = new Set<string>();
  const todo = [join(LIB, 'index.ts')];
  const options = { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } };
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const js = ts.transpileModule(readFileSync(file, 'utf8'), options).outputText;
    for (const d of imports(file, js.replace(/\bimport\(\s*'[^']*'\s*\)/g, ''))) todo.push(d);
  }
  return new Set([...seen].map((f) => relative(LIB, f)));
}

/** Section 2's table: each row's folder, what it says a bare import loads, what it says loads later. */
function documentedLoads(): { loads: Set<string>; later: string[]; rows: number } {
  const section = /^## 2\. What loads when\n([\s\S]*?)^## /m.exec(PROSE)?.[1] ?? '';
  const loads = new Set<string>();
  const later: string[] = [];
  let rows = 0;
  for (const [, folder, now, then] of section.matchAll(/^\| `lib\/([\w\-/]*)` \| ([^|]*) \| ([^|]*) \|$/gm)) {
    rows++;
    const dir = join(LIB, folder!);
    const files = (list: string) =>
      [...list.matchAll(/`([\w{},.-]+\.ts)`/g)].flatMap((m) => expand(m[1]!)).map((f) => relative(LIB, join(dir, f)));
    const inFolder = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => relative(LIB, join(dir, f)));
    const listed = now!.startsWith('all') ? inFolder.filter((f) => !files(now!).includes(f)) : files(now!);
    for (const f of listed) loads.add(f);
    later.push(...files(then!));
  }
  return { loads, later, rows };
}

test("a bare import loads the modules section 2's table lists, as many as it says, and none it says load later", (t) => {
  const loaded = bareImport();
  t.true(loaded.has('service.ts') && !loaded.has('routes.ts'), 'the closure stops at dynamic imports');
  const { loads, later, rows } = documentedLoads();
  t.true(rows > 10, `${rows} rows`);
  t.deepEqual([...loads].filter((f) => !loaded.has(f)).sort(), [], 'listed as loaded, not loaded');
  t.deepEqual([...loaded].filter((f) => !loads.has(f)).sort(), [], 'loaded, not listed');
  t.deepEqual(
    later.filter((f) => loaded.has(f)),
    [],
    'said to load later, loaded',
  );
  const count = /A bare `import 'authkoa'` loads (\d+) modules of lib\//.exec(PROSE);
  t.is(Number(count?.[1]), loaded.size, 'the count in section 2');
});

test('the counts the document gives are the code’s', async (t) => {
  const { BUILT_IN_FEATURES } = await import('../../lib/core/features.js');
  const top = SOURCES.filter((f) => dirname(f) === LIB);
  const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven'];
  const builtIns = /The (\w+) built-in features/.exec(PROSE)?.[1];
  t.is(builtIns, words[BUILT_IN_FEATURES.length], 'the built-in features');
  const rows = [...PROSE.matchAll(/^\| `([\w-]+)` \| `([\w-]+)\/` \| ([^|]+) \| ([^|]+) \|$/gm)].map(
    ([, name, folder, option, needs]) => ({
      name,
      folder,
      option: option!.startsWith('always on') ? undefined : /^`(\w+)`$/.exec(option!.trim())?.[1],
      needs: [...needs!.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort(),
    }),
  );
  t.deepEqual(
    rows,
    BUILT_IN_FEATURES.map((f, i) => ({
      name: f.name,
      folder: FEATURE_FOLDERS[i],
      option: f.option,
      needs: [...f.needs].sort(),
    })),
    'the built-in features table: name, folder, option and needs of each row, in the table’s order',
  );
  const topFiles = /\*\*`lib\/`, top level\*\*: (\w+) files/.exec(PROSE)?.[1];
  t.is(topFiles, words[top.length], 'the files at the top of lib/');
});
