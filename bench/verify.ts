/**
 * Micro benchmark of token verification: authkoa's TokenService.parse against jsonwebtoken (with a
 * KeyObject prepared once), fast-jwt (with and without its cache) and jose, on one repeated HS256 token.
 */
import { createSecretKey } from 'node:crypto';
import { createVerifier } from 'fast-jwt';
import { jwtVerify } from 'jose';
import jwt from 'jsonwebtoken';
import { resolveOptions, TokenService } from './built.js';

export interface MicroResult {
  name: string;
  opsPerSec: number;
}

const SECRET = 'bench-secret-0123456789abcdef0123456789';

async function measure(name: string, fn: () => unknown, ms: number): Promise<MicroResult> {
  // Warm-up lets the JIT settle before the clock starts.
  const warmEnd = performance.now() + ms / 4;
  while (performance.now() < warmEnd) for (let i = 0; i < 100; i++) await fn();
  let ops = 0;
  const start = performance.now();
  const end = start + ms;
  while (performance.now() < end) {
    for (let i = 0; i < 200; i++) await fn();
    ops += 200;
  }
  return { name, opsPerSec: Math.round((ops * 1000) / (performance.now() - start)) };
}

/** Runs every verifier for `ms` milliseconds each and returns ops/s, fastest first. */
export async function verifyBench(ms = 2000): Promise<MicroResult[]> {
  const tokens = new TokenService(
    resolveOptions({ secret: SECRET, url: 'http://127.0.0.1:8080', providers: [{ kind: 'direct', name: 'd', checker: () => true }] }),
  );
  const token = await tokens.create({
    aud: 'bench',
    jti: 'f'.repeat(40),
    exp: Math.floor(Date.now() / 1000) + 3600,
    user: { name: 'bench user', id: 'direct_0123456789abcdef0123456789abcdef01234567', picture: 'http://127.0.0.1:8080/avatar/x.image' },
    auth_provider: { name: 'd' },
  });
  const key = createSecretKey(Buffer.from(SECRET));
  const fastPlain = createVerifier({ key: SECRET, algorithms: ['HS256'] });
  const fastCached = createVerifier({ key: SECRET, algorithms: ['HS256'], cache: true });
  const joseKey = new TextEncoder().encode(SECRET);

  const results = [
    await measure('authkoa TokenService.parse', () => tokens.parse(token), ms),
    await measure('fast-jwt (cache: true)', () => fastCached(token), ms),
    await measure('fast-jwt (no cache)', () => fastPlain(token), ms),
    await measure('jsonwebtoken (KeyObject)', () => jwt.verify(token, key, { algorithms: ['HS256'] }), ms),
    await measure('jose jwtVerify', () => jwtVerify(token, joseKey, { algorithms: ['HS256'] }), ms),
  ];
  return results.sort((a, b) => b.opsPerSec - a.opsPerSec);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await verifyBench(Number(process.argv[2] ?? 2000))) console.log(`${r.name.padEnd(32)} ${r.opsPerSec.toLocaleString('en-US').padStart(12)} ops/s`);
}
