/**
 * authkoa as applications run it: the compiled dist/ that `npm run bench` builds first (prebench).
 * Importing lib/ here would run it through tsx, whose esbuild transform wraps every named function
 * created per call in a `__name()` helper (keepNames): a per-call cost the shipped package does not
 * have, which showed in the profiles of the basic-auth path. Types still come from lib/.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/lib/', import.meta.url);
if (!existsSync(fileURLToPath(new URL('index.js', dist))))
  throw new Error('dist/ is missing: run `npm run build` (npm run bench does it first)');

const load = <T>(path: string): Promise<T> => import(new URL(path, dist).href) as Promise<T>;

export const { authKoa, AUTH_EVENT_TYPES } = await load<typeof import('../lib/index.js')>('index.js');
export const { avatarId, openStore, prune } =
  await load<typeof import('../lib/avatar/stores/index.js')>('avatar/stores/index.js');
export const { safeEqual } = await load<typeof import('../lib/util/safe-equal.js')>('util/safe-equal.js');
export const { readCookie } = await load<typeof import('../lib/session/transport.js')>('session/transport.js');
export const { resolveAuthKoaOptions: resolveOptions } =
  await load<typeof import('../lib/core/options.js')>('core/options.js');
export const { internalsOf } = await load<typeof import('../lib/instance.js')>('instance.js');
export const { TokenService } =
  await load<typeof import('../lib/session/token-service.js')>('session/token-service.js');
export const { OWASP_SCRYPT } =
  await load<typeof import('../lib/accounts/password-hash.js')>('accounts/password-hash.js');
export const { memoryStateStore } = await load<typeof import('../lib/state/memory.js')>('state/memory.js');
export const { statePersonalTokenStore } =
  await load<typeof import('../lib/personal-tokens/store.js')>('personal-tokens/store.js');
export const { mintToken, tokenHash } =
  await load<typeof import('../lib/personal-tokens/format.js')>('personal-tokens/format.js');
export const { protectedResource, verifier } = await load<typeof import('../lib/verify/index.js')>('verify/index.js');
export type { AuthKoaOptions, User } from '../lib/index.js';
