import type { AuthKoaOptions } from '../../lib/index.js';

export const SECRET = 'core-test-secret-0123456789abcdef';

/** The direct provider the core tests log in through: dev_direct / password, and a few other users. */
export const directProvider = {
  kind: 'direct' as const,
  name: 'direct',
  checker: (user: string, passwd: string) => passwd === 'password' && user !== 'nobody',
};

export function baseOptions(extra: Partial<AuthKoaOptions> = {}): Omit<AuthKoaOptions, 'url'> {
  return { secret: SECRET, providers: [directProvider], ...extra };
}
