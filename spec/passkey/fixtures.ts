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
  port: number;
  /** Stops the app (also done at teardown); the port is free again. */
  close(): Promise<void>;
}

/**
 * An app on http://localhost:<port> (listening on 127.0.0.1; `host` may be another name browsers send to
 * loopback, such as app.localhost) with the dev provider, a passkey provider and a protected `/private`
 * route; `router` takes more routes. `port` 0 picks a free one.
 */
export async function startPasskeyApp(t: ExecutionContext, state: StateStore = memoryStateStore(), providers?: ProviderEntry[], host = 'localhost', port = 0): Promise<PasskeyApp> {
  const koa = new Koa();
  const served = await serve((req, res) => koa.callback()(req, res), port);
  const url = served.url.replace('127.0.0.1', host);
  const auth = authKoa({
    secret: SECRET,
    url,
    stateStore: state,
    providers: providers ?? [{ kind: 'dev', port: 0 }, { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' }],
  });
  const close = async () => {
    await auth.close();
    await served.close();
  };
  t.teardown(close);
  await auth.ready;
  const router = new Router();
  router.get('/private', auth.middleware.auth, (ctx) => {
    ctx.body = { user: getUserInfo(ctx) };
  });
  koa.use(auth);
  koa.use(router.routes());
  return { url, auth, state, router, port: served.port, close };
}
