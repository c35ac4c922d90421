/**
 * The parts features share have owners of their own (issue #61): the outbox (`lib/outbox/`) and the outbound-request
 * safety (`lib/http/`). So the features using them import neither each other nor the avatar proxy, and the outbox
 * imports no feature.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const lib = join(import.meta.dirname, '..', '..', 'lib');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The lib/ folders (their first segment: `webhooks`, `avatar`) that the files under `folder` import from. */
function foldersImportedBy(folder: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sources(join(lib, folder))) {
    const text = readFileSync(file, 'utf8');
    const specifiers = [
      ...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms),
      ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
    ];
    for (const m of specifiers) {
      const target = relative(lib, normalize(join(dirname(file), m[1]!)));
      const top = target.split(/[\\/]/)[0]!;
      found.set(top, [...(found.get(top) ?? []), relative(lib, file)]);
    }
  }
  return found;
}

/** The files under `folder` that import from any of `others`, as `file -> other`. */
function reaches(folder: string, others: readonly string[]): string[] {
  return [...foldersImportedBy(folder)]
    .filter(([top]) => others.includes(top))
    .flatMap(([top, files]) => [...new Set(files)].map((f) => `${f} -> ${top}/`))
    .sort();
}

const FEATURES = ['accounts', 'mfa', 'personal-tokens', 'webhooks', 'ssf', 'features'];

test('the webhooks and the Shared Signals transmitter import neither each other nor the avatar proxy', (t) => {
  t.deepEqual(reaches('webhooks', ['ssf', 'avatar']), []);
  t.deepEqual(reaches('ssf', ['webhooks', 'avatar']), []);
});

test('the shared outbox imports no feature folder', (t) => {
  t.true(existsSync(join(lib, 'outbox')), 'lib/outbox/ exists');
  t.deepEqual(reaches('outbox', FEATURES), []);
});

test('the outbound-request safety in lib/http imports nothing of the avatar proxy but through the entry', (t) => {
  const files = foldersImportedBy('http').get('avatar') ?? [];
  t.deepEqual(
    [...new Set(files)].filter((f) => f !== 'http/entry.ts'),
    [],
  );
});

test('the check sees an import: the webhooks and the transmitter both import the outbox, the avatar lib/http', (t) => {
  t.true(foldersImportedBy('webhooks').has('outbox'));
  t.true(foldersImportedBy('ssf').has('outbox'));
  t.true(foldersImportedBy('avatar').has('http'));
  t.true(reaches('core', ['webhooks']).length > 0, 'the feature table imports the webhooks');
});
