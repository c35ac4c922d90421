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
    resolveOptions({
      secret: SECRET,
      url: 'http://127.0.0.1:8080',
      providers: [{ kind: 'direct', name: 'd', checker: () => true }],
    }),
  );
  const token = await tokens.create({
    aud: 'bench',
    jti: 'f'.repeat(40),
    exp: Math.floor(Date.now() / 1000) + 3600,
    user: {
      name: 'bench user',
      id: 'direct_0123456789abcdef0123456789abcdef01234567',
      picture: 'http://127.0.0.1:8080/avatar/x.image',
    },
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

/** The claims every algorithm row signs: those of a session. */
function sessionClaims(jti: string) {
  return {
    aud: 'bench',
    jti,
    exp: Math.floor(Date.now() / 1000) + 3600,
    user: {
      name: 'bench user',
      id: 'direct_0123456789abcdef0123456789abcdef01234567',
      picture: 'http://127.0.0.1:8080/avatar/x.image',
    },
    auth_provider: { name: 'd' },
  };
}

/** Distinct tokens enough that cycling through them misses the verified-token cache (10 000 entries, oldest evicted first). */
const COLD_TOKENS = 20_000;

/**
 * Session-token verification by algorithm (the `signing` option): TokenService.parse on one repeated
 * token (the verified-token cache's hit, what a protected route pays per request) and on tokens it has
 * not seen (a cold verify: the signature checked), for HS256, EdDSA and ES256; jose's EdDSA verify for
 * reference (it has no cache, so every call is cold).
 */
export async function algorithmBench(ms = 2000): Promise<MicroResult[]> {
  const { BENCH_KEYS } = await import('./keys.js');
  const base = {
    secret: SECRET,
    url: 'http://127.0.0.1:8080',
    providers: [{ kind: 'direct' as const, name: 'd', checker: () => true }],
  };
  const services = {
    HS256: new TokenService(resolveOptions(base)),
    EdDSA: new TokenService(resolveOptions({ ...base, signing: { alg: 'EdDSA', key: BENCH_KEYS.EdDSA } })),
    ES256: new TokenService(resolveOptions({ ...base, signing: { alg: 'ES256', key: BENCH_KEYS.ES256 } })),
  };
  const results: MicroResult[] = [];
  for (const [alg, service] of Object.entries(services)) {
    const one = await service.create(sessionClaims('f'.repeat(40)));
    results.push(await measure(`authkoa ${alg}, repeated token (cache hit)`, () => service.parse(one), ms));
    const cold = await Promise.all(
      Array.from({ length: COLD_TOKENS }, (_, i) => service.create(sessionClaims(i.toString(16).padStart(40, '0')))),
    );
    // A fresh service, so none of these tokens is in its cache; cycling through more than it holds keeps it so.
    const verifier = new TokenService(
      resolveOptions(
        alg === 'HS256'
          ? base
          : { ...base, signing: { alg: alg as 'EdDSA' | 'ES256', key: BENCH_KEYS[alg as 'EdDSA' | 'ES256'] } },
      ),
    );
    let i = 0;
    results.push(await measure(`authkoa ${alg}, cold verify`, () => verifier.parse(cold[i++ % COLD_TOKENS]!), ms));
  }
  const { createPublicKey } = await import('node:crypto');
  const edPublic = createPublicKey(BENCH_KEYS.EdDSA);
  const edToken = await services.EdDSA.create(sessionClaims('e'.repeat(40)));
  results.push(
    await measure(
      'jose jwtVerify EdDSA (KeyObject)',
      () => jwtVerify(edToken, edPublic, { algorithms: ['EdDSA'] }),
      ms,
    ),
  );
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ms = Number(process.argv[2] ?? 2000);
  for (const r of [...(await verifyBench(ms)), ...(await algorithmBench(ms))])
    console.log(`${r.name.padEnd(48)} ${r.opsPerSec.toLocaleString('en-US').padStart(12)} ops/s`);
}
