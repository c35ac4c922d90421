import type { ExecutionContext } from 'ava';
import Koa from 'koa';
import Router from '@koa/router';
import { authKoa, getUserInfo, type AuthKoa, type ProviderEntry } from '../../lib/index.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import { serve } from '../helpers/http.js';

export const SECRET = 'passkey-test-secret-0123456789abcdef';

export interface PasskeyApp {
  /** http://localhost:<port>: WebAuthn refuses IP addresses as relying party ids. */
  url: string;
  auth: AuthKoa;
  state: StateStore;
  router: Router;
}

/**
 * An app on http://localhost:<port> (listening on 127.0.0.1) with the dev provider, a passkey provider
 * and a protected `/private` route; `router` takes more routes.
 */
export async function startPasskeyApp(t: ExecutionContext, state: StateStore = memoryStateStore(), providers?: ProviderEntry[]): Promise<PasskeyApp> {
  const koa = new Koa();
  const served = await serve((req, res) => koa.callback()(req, res));
  const url = served.url.replace('127.0.0.1', 'localhost');
  const auth = authKoa({
    secret: SECRET,
    url,
    stateStore: state,
    providers: providers ?? [{ kind: 'dev', port: 0 }, { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' }],
  });
  t.teardown(async () => {
    await auth.close();
    await served.close();
  });
  await auth.ready;
  const router = new Router();
  router.get('/private', auth.middleware.auth, (ctx) => {
    ctx.body = { user: getUserInfo(ctx) };
  });
  koa.use(auth);
  koa.use(router.routes());
  return { url, auth, state, router };
}
