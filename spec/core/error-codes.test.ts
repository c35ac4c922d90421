/** The one table of error codes and their statuses (lib/errors.ts) against the one table of them in docs/tokens.md. */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuthError, ERROR_CODES, ERROR_STATUS } from '../../lib/index.js';
import { ACCOUNT_ERRORS } from '../../lib/accounts/errors.js';
import { MFA_ERRORS } from '../../lib/mfa/errors.js';
import { SSF_ERRORS } from '../../lib/ssf/errors.js';
import { AuthError as VerifyAuthError, ERROR_STATUS as VERIFY_STATUS, VerifyError } from '../../lib/verify/index.js';

const root = join(import.meta.dirname, '..', '..');

/** Every code docs/tokens.md lists with its status: authkoa's own, then the built-in features' (their `errors`). */
const STATUS: Readonly<Record<string, number>> = { ...ERROR_STATUS, ...MFA_ERRORS, ...ACCOUNT_ERRORS, ...SSF_ERRORS };
const CODES = Object.keys(STATUS);

/** `code → statuses` of the rows of the error table under "## Error codes" in docs/tokens.md. */
function documentedStatuses(): Map<string, number[]> {
  const doc = readFileSync(join(root, 'docs', 'tokens.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Error codes'));
  const table = new Map<string, number[]>();
  for (const row of section.split('\n').filter((l) => /^\| \d{3} \|/.test(l))) {
    const [, status, codes] = row.split('|');
    for (const m of codes!.matchAll(/`([a-z_]+)`/g)) table.set(m[1]!, [...(table.get(m[1]!) ?? []), Number(status)]);
  }
  return table;
}

/** Every code lib/ writes as a literal where an AuthError is made. */
function codesInSource(): Set<string> {
  const codes = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) {
        const source = readFileSync(p, 'utf8');
        for (const m of source.matchAll(/(?:new AuthError\(|providerError\([\w.]+, )\s*(?:[^;]*? \? )?'([a-z_]+)'/g))
          codes.add(m[1]!);
      }
    }
  };
  walk(join(root, 'lib'));
  return codes;
}

test("every code's status in lib/errors.ts (and a built-in feature's) is the one docs/tokens.md's table gives it, each code in one row", (t) => {
  const documented = documentedStatuses();
  t.true(documented.size > 40, `the table was found (${documented.size} codes)`);
  const inLib = Object.fromEntries(CODES.map((c) => [c, [STATUS[c]]]));
  t.deepEqual(
    Object.fromEntries([...documented].sort(([a], [b]) => CODES.indexOf(a) - CODES.indexOf(b))),
    inLib,
    'docs/tokens.md: a code missing, documented twice, with another status than its table, or in no table',
  );
});

/** The .ts files under a folder of the repository, as paths from its root. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`);
}

/**
 * `[file:line, status, code]` for each status the docs write beside an error code: table rows
 * (`| 403 | \`a\`, \`b\` |`, `| \`a\` | 403 |`) and prose (`403 \`a\``, `**403** \`a\``, `403 {"code":"a"`), in
 * README.md, docs/, and the comments and OpenAPI descriptions of lib/, bin/ and browser/.
 */
function statusesInDocs(): Array<[string, number, string]> {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const files = ['README.md', ...docs, ...sourcesUnder('lib'), ...sourcesUnder('bin'), ...sourcesUnder('browser')];
  const found: Array<[string, number, string]> = [];
  for (const file of files) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const at = `${file}:${i + 1}`;
        const row = /^\| *\**(\d{3})\** *\|([^|]*)\|/.exec(line);
        if (row) for (const c of row[2]!.matchAll(/`([a-z_]+)`/g)) found.push([at, Number(row[1]), c[1]!]);
        const flipped = /^\| *`([a-z_]+)` *\| *\**(\d{3})\** *\|/.exec(line);
        if (flipped) found.push([at, Number(flipped[2]), flipped[1]!]);
        for (const m of line.matchAll(/\b(\d{3})\** \(?`([a-z_]+)`|\b(\d{3}) \{"code":"([a-z_]+)"/g))
          found.push([at, Number(m[1] ?? m[3]), (m[2] ?? m[4])!]);
      });
  }
  return found.filter(([, , code]) => Object.hasOwn(STATUS, code));
}

test("every status the docs and the OpenAPI descriptions write beside an error code is that code's", (t) => {
  const found = statusesInDocs();
  t.true(found.length > 180, `statuses found beside codes in docs (${found.length})`);
  t.deepEqual(
    found.filter(([, status, code]) => STATUS[code] !== status),
    [],
  );
});

test('the list has no duplicates, matches the table, and holds every code lib/ throws', (t) => {
  t.is(new Set(ERROR_CODES).size, ERROR_CODES.length);
  t.deepEqual([...ERROR_CODES], Object.keys(ERROR_STATUS));
  for (const c of ERROR_CODES)
    t.true(Number.isInteger(ERROR_STATUS[c]) && ERROR_STATUS[c] >= 400 && ERROR_STATUS[c] < 600, c);
  const thrown = codesInSource();
  t.true(thrown.size > 50, `codes found in lib/ (${thrown.size})`);
  t.deepEqual(
    [...thrown].filter((c) => !(ERROR_CODES as readonly string[]).includes(c)),
    [],
  );
});

test("the second factor's own codes are in its table (lib/mfa/errors.ts), none in the core's, at the statuses clients get", (t) => {
  t.deepEqual(
    Object.keys(MFA_ERRORS).filter((c) => Object.hasOwn(ERROR_STATUS, c)),
    [],
  );
  t.like(MFA_ERRORS, { enrollment_required: 403, factor_not_enrolled: 409, totp_not_pending: 409 });
  for (const code of ['enrollment_required', 'factor_not_enrolled', 'totp_not_pending'])
    t.throws(() => new AuthError(code as never, 'm'), { instanceOf: TypeError }, `${code} is not the core's`);
});

test("an AuthError's status is its code's, from the one table; a code outside it is a TypeError naming the argument", (t) => {
  for (const code of ERROR_CODES) {
    const err = new AuthError(code, 'm');
    t.deepEqual([err.status, err.code, err.name, err.message], [ERROR_STATUS[code], code, 'AuthError', 'm']);
  }
  const cause = new Error('below');
  t.is(new AuthError('internal_error', 'm', { cause }).cause, cause);
  // The former shape, (status, code, message), from plain JavaScript.
  const Loose = AuthError as unknown as new (...args: unknown[]) => AuthError;
  t.throws(() => new Loose(401, 'no_token', 'm'), {
    instanceOf: TypeError,
    message: 'AuthError: code must be one of ERROR_CODES (got 401)',
  });
  t.throws(() => new Loose('toString', 'm'), { instanceOf: TypeError });
});

test('authkoa/verify throws the same class, with the same table: one error family', (t) => {
  t.is(VerifyAuthError, AuthError);
  t.is(VerifyError, AuthError, 'VerifyError is the former name of AuthError');
  t.is(VERIFY_STATUS, ERROR_STATUS);
});
