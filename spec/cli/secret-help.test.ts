/** `authctl secret --help`, docs/cli.md and the code say the same about sizes: bytes drawn, characters printed. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { authKoa } from '../../lib/index.js';
import { ROOT, runCli } from '../helpers/cli.js';

const base = {
  url: 'http://127.0.0.1:1',
  providers: [{ kind: 'direct' as const, name: 'local', checker: () => true }],
};

test('the help and docs/cli.md give the default (32 bytes, 43 characters) and the least (24 bytes, 32 characters)', async (t) => {
  const help = (await runCli(['secret', '--help'])).stdout.replace(/\s+/g, ' ');
  t.regex(help, /random bytes to draw, at least 24/);
  t.regex(help, /32 bytes: 43 characters; 24 bytes: 32, the least the secret option takes/);
  t.regex(help, /\(default: 32\)/);
  const row = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('| `authctl secret'))!;
  t.regex(row, /N random bytes \(default 32, at least 24\) in base64url, 43 characters by default/);
  t.regex(row, /the `secret` option takes 32 bytes of text or more/);
});

test('what the help promises holds: the default prints 43 characters, 24 bytes print 32 that authKoa takes, 23 are refused', async (t) => {
  const dflt = (await runCli(['secret'])).stdout.trim();
  t.is(dflt.length, 43);
  const least = (await runCli(['secret', '--bytes', '24'])).stdout.trim();
  t.is(least.length, 32);
  t.notThrows(() => authKoa({ ...base, secret: least }));
  t.throws(() => authKoa({ ...base, secret: least.slice(1) }), { message: /at least 32 bytes/ });
  const fewer = await runCli(['secret', '--bytes', '23']);
  t.is(fewer.code, 1);
  t.regex(fewer.stderr, /must be a whole number from 24 to 1024/);
});
