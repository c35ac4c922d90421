/**
 * `authctl keys generate` (issue #35), run as its own process: stdout is a PEM file the `signing`
 * option loads (`> key.pem`), the kid on stderr is the one the app's tokens carry, `--json` gives the
 * public key `jose` verifies them with, and a bad --alg is a one-line error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { calculateJwkThumbprint, exportJWK, importSPKI, jwtVerify } from 'jose';
import type { SigningAlg } from '../../lib/session/signing.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { ALGS, jwtHeader, loginToken, startSignedApp } from '../verify/fixtures.js';

interface Generated {
  alg: SigningAlg;
  kid: string;
  privateKey: string;
  publicKey: string;
}

test('keys generate: EdDSA by default, only the PEM on stdout (a usable key.pem), alg and kid on stderr; the app signs with that kid', async (t) => {
  const r = await runCli(['keys', 'generate']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/);
  const [, alg, kid] = /^alg: (\S+)\nkid: ([A-Za-z0-9_-]{43})\n$/.exec(r.stderr) ?? [];
  t.is(alg, 'EdDSA');
  const file = join(tempDir(t), 'key.pem');
  writeFileSync(file, r.stdout);
  const app = await startSignedApp(t, { alg: 'EdDSA', key: `file:${file}` });
  t.deepEqual(jwtHeader(await loginToken(app)), { alg: 'EdDSA', kid, typ: 'JWT' });
});

for (const alg of ALGS) {
  test(`keys generate --alg ${alg} --json: {alg, kid, privateKey, publicKey}; the app's token carries the kid and jose verifies it with the printed public key`, async (t) => {
    const r = await runCli(['keys', 'generate', '--alg', alg, '--json']);
    t.is(r.code, 0, r.stderr);
    t.is(r.stderr, '');
    const key = JSON.parse(r.stdout) as Generated;
    t.deepEqual(Object.keys(key).sort(), ['alg', 'kid', 'privateKey', 'publicKey']);
    t.is(key.alg, alg);
    const publicKey = await importSPKI(key.publicKey, alg);
    t.is(
      key.kid,
      await calculateJwkThumbprint(await exportJWK(publicKey)),
      'the kid is the RFC 7638 thumbprint of the printed public key',
    );

    const file = join(tempDir(t), 'key.pem');
    writeFileSync(file, key.privateKey);
    const app = await startSignedApp(t, { alg, key: `file:${file}` });
    const token = await loginToken(app);
    t.is(jwtHeader(token).kid, key.kid);
    const { payload, protectedHeader } = await jwtVerify(token, publicKey, { issuer: 'authkoa', algorithms: [alg] });
    t.is(protectedHeader.alg, alg);
    t.like(payload.user, { name: 'alice' });
  });
}

test('keys generate: two runs give two different keys', async (t) => {
  const [a, b] = await Promise.all([runCli(['keys', 'generate', '--json']), runCli(['keys', 'generate', '--json'])]);
  t.not((JSON.parse(a.stdout) as Generated).kid, (JSON.parse(b.stdout) as Generated).kid);
});

test('keys generate --alg HS256: a message naming the option, the value and the choices, exit 1, nothing on stdout', async (t) => {
  const r = await runCli(['keys', 'generate', '--alg', 'HS256']);
  t.is(r.code, 1);
  t.is(r.stdout, '');
  t.regex(r.stderr, /--alg <alg>' argument 'HS256' is invalid\. must be one of EdDSA, ES256, RS256/);
});

test('authctl --help lists keys, and keys generate --help says where the PEM and the kid go', async (t) => {
  t.regex((await runCli(['--help'])).stdout, /\bkeys\b.*signing/);
  const help = (await runCli(['keys', 'generate', '--help'])).stdout.replace(/\s+/g, ' ');
  t.regex(help, /PEM\) on stdout, its alg and kid on stderr: authctl keys generate > key\.pem/);
  t.regex(help, /\(default: "EdDSA"\)/);
});
