import { noEvents } from '../../lib/events/bus.js';
import { noTracing } from '../../lib/telemetry/types.js';
import test from 'ava';
import Koa from 'koa';
import { writeError } from '../../lib/http/respond.js';
import type { CompletedLogin } from '../../lib/session/login.js';
import { noopLogger } from '../../lib/logger.js';
import { resolveAuthKoaOptions as resolveOptions } from '../../lib/core/options.js';
import { socialProvider } from '../../lib/providers/social.js';
import type { ProviderDeps } from '../../lib/providers/core/contract.js';
import { TokenService } from '../../lib/session/token-service.js';
import { providerUserId } from '../../lib/user.js';
import { stateLimiter } from '../../lib/state/limiter.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { Client, serve } from '../helpers/http.js';
import { SECRET, standinLogin } from './fixtures.js';
import { startStandin } from './standin.js';

/**
 * A provider built by hand from ProviderDeps, the way a third-party host would: what reaches
 * completeLogin is visible, including the avatar fetch headers.
 */
async function handBuilt(t: any, entry: Record<string, unknown>) {
  const logins: CompletedLogin[] = [];
  const app = new Koa();
  const served = await serve((req, res) => app.callback()(req, res));
  t.teardown(() => served.close());
  const o = resolveOptions({
    secret: SECRET,
    url: served.url,
    providers: [{ kind: 'direct' } as import('../../lib/index.js').ProviderEntry],
  });
  const state = memoryStateStore();
  const deps: ProviderDeps = {
    tokenService: new TokenService(o),
    logger: noopLogger,
    url: served.url,
    clock: Date.now,
    stateStore: state,
    events: noEvents,
    tracing: noTracing,
    limiter: stateLimiter(state, Date.now),
    userId: (provider, raw) => providerUserId(provider, raw),
    cookies: { name: 'JWT', secure: false },
    routeURL: (name, action) => `${served.url}/auth/${name}/${action}`,
    async completeLogin(ctx, login) {
      logins.push(login);
      ctx.body = { ok: true };
    },
    callbackURL: (ctx) => served.url + ctx.path.replace(/\/[^/]*$/, '/callback'),
    safeRedirect: () => undefined,
    endSession: (ctx) => void (ctx.body = ''),
  };
  const provider = await socialProvider.create({ kind: 'social', ...entry }, deps);
  app.use(async (ctx) => {
    try {
      if (ctx.path.endsWith('/login')) await provider.login(ctx);
      else await provider.callback!(ctx);
    } catch (err) {
      writeError(ctx, err);
    }
  });
  return { logins, client: new Client(served.url) };
}

test('microsoft hands the user bearer token to the avatar fetch (the Graph photo needs it); others do not', async (t) => {
  const standin = await startStandin({ id: 'ms-1', displayName: 'Megan' });
  t.teardown(() => standin.close());
  const ms = await handBuilt(t, { name: 'microsoft', cid: 'c', csecret: 's', ...standin.endpoints() });
  t.is((await standinLogin(ms.client, 'microsoft')).status, 200);
  t.deepEqual(ms.logins[0]!.avatar, { headers: { Authorization: 'Bearer standin-access-token' } });
  t.is(ms.logins[0]!.user.picture, 'https://graph.microsoft.com/beta/me/photo/$value');
  standin.script.infoBody = { login: 'lll', avatar_url: 'https://a.test/x.png' };
  const gh = await handBuilt(t, { name: 'github', cid: 'c', csecret: 's', ...standin.endpoints() });
  t.is((await standinLogin(gh.client, 'github')).status, 200);
  t.is(gh.logins[0]!.avatar, undefined);
});

test('what a callback hands to completeLogin: provider, user, aud, session flag, from, noAva from the handshake', async (t) => {
  const standin = await startStandin({ login: 'lll', name: 'Lev' });
  t.teardown(() => standin.close());
  const gh = await handBuilt(t, { name: 'github', cid: 'c', csecret: 's', ...standin.endpoints() });
  await standinLogin(gh.client, 'github', 'site=s1&from=/back&noava=1');
  const { provider, user, aud, sessionOnly, from, noAva } = gh.logins[0]!;
  t.deepEqual(
    { provider, user, aud, sessionOnly, from, noAva },
    {
      provider: 'github',
      user: { name: 'Lev', id: 'github_e80b2d2608711cbb3312db7c4727a46fbad9601a', picture: '' },
      aud: 's1',
      sessionOnly: false,
      from: '/back',
      noAva: true,
    },
  );
});
