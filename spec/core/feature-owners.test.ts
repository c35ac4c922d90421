/**
 * Issue #61's "edges back to their owners": what belongs to one feature sits in that feature's folder, not in
 * a shared one. The shared PostgreSQL and URI helpers name no feature; each feature's client calls have their
 * own file under browser/client/.
 */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const lib = join(root, 'lib');

/** The .ts files under a folder of lib/, as absolute paths. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(join(lib, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(lib, dir, f));
}

/** The relative modules a file imports (static, re-exports, dynamic), as absolute .ts paths. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) => normalize(join(dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
}

/** The folders of lib/ that hold one feature (or one store that owns its tables: the avatars'). */
const OWNERS = ['accounts', 'mfa', 'personal-tokens', 'webhooks', 'ssf', 'avatar', 'features'];

test("lib/postgres/ imports no feature folder and creates only the state store's tables", (t) => {
  const files = sourcesUnder('postgres');
  t.true(files.length >= 4, 'the folder was read');
  const reaching = files.flatMap((f) =>
    imports(f)
      .filter((i) => OWNERS.includes(relative(lib, i).split(/[\\/]/)[0]!))
      .map((i) => `${relative(lib, f)} -> ${relative(lib, i)}`),
  );
  t.deepEqual(reaching, []);
  const tables = files.flatMap((f) =>
    [...readFileSync(f, 'utf8').matchAll(/tableName\(\w+, '([a-z_]+)'\)/g)].map((m) => m[1]),
  );
  t.deepEqual(tables.sort(), ['broadcast', 'state'], 'the state store and its broadcast log, no feature table');
});

test("lib/util/'s URI helpers hold no feature's own URI parameters (the accounts' are in lib/accounts/)", (t) => {
  const text = readFileSync(join(lib, 'util', 'mongodb-uri.ts'), 'utf8');
  t.true(text.includes("'state_db'"), 'the file was read');
  t.deepEqual(text.match(/'(?:accounts|mfa|tokens|webhooks|ssf)_\w+'/g), null);
  t.regex(readFileSync(join(lib, 'accounts', 'mongodb-uri.ts'), 'utf8'), /'accounts_db', 'accounts_coll'/);
});
