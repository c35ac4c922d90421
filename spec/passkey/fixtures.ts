import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionContext } from 'ava';
import Koa from 'koa';
import Router from '@koa/router';
import { authKoa, getUserInfo, type AuthKoa, type ProviderEntry } from '../../lib/index.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import { contractRecorder } from '../helpers/answers.js';
import { serve, type Served } from '../helpers/http.js';

export const SECRET = 'passkey-test-secret-0123456789abcdef';

export interface PasskeyApp {
  /** http://localhost:<port>: WebAuthn refuses IP addresses as relying party ids. */
  url: string;
  auth: AuthKoa;
  state: StateStore;
  router: Router;
  port: number;
  /** The listening server, which another app may take over (see startPasskeyApp). */
  served: Served;
  /** Stops the app (also done at teardown); the port is free again. */
  close(): Promise<void>;
}

/**
 * An app on http://localhost:<port> (listening on 127.0.0.1; `host` may be another name browsers send to
 * loopback, such as app.localhost) with the dev provider, a passkey provider and a protected `/private`
 * route; `router` takes more routes. `on` 0 picks a free port; an earlier app whose `auth` is closed hands
 * over its listening server, so the new app answers on the same origin with no moment in between in which
 * the port is free for another process to take. `clock` replaces the app's clock (a test's manualClock).
 */
export async function startPasskeyApp(
  t: ExecutionContext,
  state: StateStore = memoryStateStore(),
  providers?: ProviderEntry[],
  host = 'localhost',
  on: 0 | PasskeyApp = 0,
  clock?: () => number,
): Promise<PasskeyApp> {
  const koa = new Koa();
  const handler = (req: IncomingMessage, res: ServerResponse) => koa.callback()(req, res);
  let served: Served;
  if (on === 0) served = await serve(handler);
  else {
    served = on.served;
    served.server.removeAllListeners('request');
    served.server.on('request', handler);
  }
  const url = served.url.replace('127.0.0.1', host);
  const auth = authKoa({
    secret: SECRET,
    url,
    stateStore: state,
    // The passkeys live in the test's memory store: the app's explicit opt-in.
    allowVolatileStores: true,
    ...(clock ? { clock } : {}),
    providers: providers ?? [
      { kind: 'dev', port: 0 },
      { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' },
    ],
  });
  const contract = contractRecorder(auth);
  const close = () =>
    contract.closed(async () => {
      await auth.close();
      await served.close();
    });
  t.teardown(close);
  await auth.ready;
  const router = new Router();
  router.get('/private', auth.middleware.auth, (ctx) => {
    ctx.body = { user: getUserInfo(ctx) };
  });
  koa.use(contract.use);
  koa.use(auth);
  koa.use(router.routes());
  return { url, auth, state, router, port: served.port, served, close };
}
