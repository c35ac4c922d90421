/** The one list of error codes against the one table of them in docs/tokens.md. */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '../../lib/index.js';

const root = join(import.meta.dirname, '..', '..');

/** Codes in the Code column of the error table under "## Error codes" in docs/tokens.md. */
function documentedCodes(): Set<string> {
  const doc = readFileSync(join(root, 'docs', 'tokens.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Error codes'));
  const codes = new Set<string>();
  for (const row of section.split('\n').filter((l) => /^\| \d{3} \|/.test(l))) {
    for (const m of row.split('|')[2]!.matchAll(/`([a-z_]+)`/g)) codes.add(m[1]!);
  }
  return codes;
}

/** Every code lib/ writes as a literal where an AuthError is made. */
function codesInSource(): Set<string> {
  const codes = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) for (const m of readFileSync(p, 'utf8').matchAll(/(?:AuthError|providerError)\([^;]*?\d{3}, '([a-z_]+)'/g)) codes.add(m[1]!);
    }
  };
  walk(join(root, 'lib'));
  return codes;
}

test('every error code is in the docs table, and the table lists no code that does not exist', (t) => {
  const documented = documentedCodes();
  t.true(documented.size > 40, `the table was found (${documented.size} codes)`);
  t.deepEqual(ERROR_CODES.filter((c) => !documented.has(c)), [], 'codes missing from docs/tokens.md');
  t.deepEqual([...documented].filter((c) => !(ERROR_CODES as readonly string[]).includes(c)), [], 'documented codes that are not in ERROR_CODES');
});

test('the list has no duplicates and holds every code lib/ throws', (t) => {
  t.is(new Set(ERROR_CODES).size, ERROR_CODES.length);
  const thrown = codesInSource();
  t.true(thrown.size > 30, `codes found in lib/ (${thrown.size})`);
  t.deepEqual([...thrown].filter((c) => !(ERROR_CODES as readonly string[]).includes(c)), []);
});
