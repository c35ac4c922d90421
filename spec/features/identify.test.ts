/**
 * A feature's `identify`: who a login is, settled before the gates. A resolved user is the session's (its id, name
 * and picture; the provider stays the login's), the features ask in order, each seeing the one before's answer,
 * the second factor's gate judges the resolved user, a refusal stops the login, and a broken answer is a 500.
 */
import test, { type ExecutionContext } from 'ava';
import type { AuthKoaOptions, FeatureModule, User } from '../../lib/index.js';
import { Client, decodeJwt, quiet, startApp } from '../helpers/http.js';

const SECRET = 'identify-feature-secret-0123456789abcdef';
const ACCOUNT: User = { id: 'acct_shared', name: 'Bob (account)', picture: '' };

/** Maps the direct login `bob` to one account; everyone else is left as the provider identified them. */
const linkBob = (seen: string[] = []): FeatureModule => ({
  name: 'link-bob',
  create: () => ({
    identify: async (_ctx, login) => {
      seen.push(`${login.provider}:${login.user.id}`);
      return login.user.name === 'bob' ? ACCOUNT : undefined;
    },
  }),
});

async function rig(t: ExecutionContext, features: FeatureModule[], extra: Partial<AuthKoaOptions> = {}) {
  const app = await startApp({
    secret: SECRET,
    features,
    providers: [{ kind: 'direct', name: 'local', checker: (_user: string, passwd: string) => passwd === 'pw' }],
    ...extra,
  } as AuthKoaOptions);
  t.teardown(() => app.close());
  const login = async (user: string) => {
    const client = new Client(app.url);
    const res = await client.fetch('/auth/local/login', { method: 'POST', form: { user, passwd: 'pw' } });
    return { client, res };
  };
  return { app, login };
}

test("a resolved user is the session's; the provider stays the login's; others are left as they were", async (t) => {
  const seen: string[] = [];
  const { login } = await rig(t, [linkBob(seen)]);
  const bob = await login('bob');
  t.is(bob.res.status, 200);
  t.like(await bob.res.json(), { id: 'acct_shared', name: 'Bob (account)' });
  const claims = decodeJwt(bob.client.jar.get('JWT')!);
  t.like(claims, { user: { id: 'acct_shared' }, auth_provider: { name: 'local' } });
  const me = await bob.client.fetch('/private', { headers: bob.client.xsrf() });
  t.like(await me.json(), { user: { id: 'acct_shared' } });
  const alice = await login('alice');
  t.regex(((await alice.res.json()) as User).id, /^local_[0-9a-f]{40}$/);
  t.is(seen.length, 2);
  t.regex(seen[0]!, /^local:local_[0-9a-f]{40}$/, "identify sees the provider's own user");
});

test("the features ask in order, each seeing the one before's answer", async (t) => {
  const seen: string[] = [];
  const after: FeatureModule = {
    name: 'after',
    create: () => ({
      identify: async (_ctx, login) => {
        seen.push(login.user.id);
        return undefined;
      },
    }),
  };
  const { login } = await rig(t, [linkBob(), after]);
  await login('bob');
  t.deepEqual(seen, ['acct_shared']);
});

test("the second factor's gate judges the resolved user", async (t) => {
  const { login } = await rig(t, [linkBob()], {
    allowVolatileStores: true,
    mfa: { store: 'memory://', required: (user: User) => user.id === 'acct_shared' },
  });
  const bob = await login('bob');
  t.like(await bob.res.json(), { mfa_required: true });
  t.false(bob.client.jar.has('JWT'), 'no session before the second step');
  const alice = await login('alice');
  t.is(alice.res.status, 200);
  t.true(alice.client.jar.has('JWT'));
});

test('identify may refuse the login with its own code; a broken answer is a 500 and no session', async (t) => {
  const refusing: FeatureModule = {
    name: 'refusing',
    errors: { identity_suspended: 403 },
    create: (_options, context) => ({
      identify: async (_ctx, login) => {
        if (login.user.name === 'mallory') throw context.error('identity_suspended', 'this identity is suspended');
        if (login.user.name === 'broken') return { name: 'no id' } as unknown as User;
        return undefined;
      },
    }),
  };
  const { login } = await rig(t, [refusing], { logger: quiet });
  const mallory = await login('mallory');
  t.is(mallory.res.status, 403);
  t.like(await mallory.res.json(), { code: 'identity_suspended' });
  t.false(mallory.client.jar.has('JWT'));
  const broken = await login('broken');
  t.is(broken.res.status, 500);
  t.like(await broken.res.json(), { code: 'internal_error' });
  t.false(broken.client.jar.has('JWT'));
});
