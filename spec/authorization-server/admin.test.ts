/**
 * The authorization server's admin API, `auth.authorizationServer` (= `auth.features.get('authorization-server')`),
 * against a real app: grants made through the real flow by oauth4webapi, listed as the user's connected-apps route
 * lists them, revoked (each family told once as `grant_revoked`) and their refresh tokens then refused; a registered
 * client removed with every grant of it. `authctl oauth` runs the same on the store (spec/cli/oauth.test.ts).
 */
import test from 'ava';
import * as oauth from 'oauth4webapi';
import type { AuthorizationServerAdmin } from '../../lib/index.js';
import { PASSWORD, signUpAndConfirm } from '../accounts/rig.js';
import { Client, startApp } from '../helpers/http.js';
import { until } from '../helpers/until.js';
import { codeFlow, insecure, REDIRECT, RESOURCE, registerClient, serverRig } from './app-rig.js';

type Rig = Awaited<ReturnType<typeof serverRig>>;

const refresh = (r: Rig, client: oauth.Client, token: string) =>
  oauth.refreshTokenGrantRequest(r.as, client, oauth.None(), token, insecure);

/** Every `grant_revoked` the app tells, in order (the bus delivers after the call that told it). */
function revocations(r: Rig): Array<Record<string, unknown>> {
  const told: Array<Record<string, unknown>> = [];
  r.app.auth.on(
    'grant_revoked',
    ({ clientId, userId, sid, reason }) => void told.push({ clientId, userId, sid, reason }),
  );
  return told;
}

const agent: oauth.Client = { client_id: 'agent' };

test('grants.list answers what the connected-apps route answers; grants.revoke ends the grant, told once, and its refresh token is refused', async (t) => {
  const r = await serverRig(t);
  const told = revocations(r);
  await signUpAndConfirm(r, 'ann@example.com');
  const ann = await codeFlow(r, r.client, agent);
  const admin = r.app.auth.authorizationServer!;
  const listed = await admin.grants.list(ann.userId);
  t.like(listed, [{ clientId: 'agent', clientName: 'Agent', scopes: ['notes:read'], resources: [RESOURCE] }]);
  t.is(listed[0]!.firstUsed, new Date(r.clock()).toISOString());
  const route = await r.client.fetch('/auth/oauth2/grants', { headers: r.client.xsrf() });
  t.deepEqual(await route.json(), listed, 'the same view as the user gets');
  const viaFeatures = r.app.auth.features.get<AuthorizationServerAdmin>('authorization-server')!;
  t.deepEqual(await viaFeatures.grants.list(ann.userId), listed);

  t.true(await admin.grants.revoke(ann.userId, 'agent'));
  await until(() => told.length > 0, 'grant_revoked told');
  t.deepEqual(told, [{ clientId: 'agent', userId: ann.userId, sid: ann.sid, reason: 'revoked' }]);
  t.deepEqual(await admin.grants.list(ann.userId), []);
  const res = await refresh(r, agent, ann.refreshToken);
  t.is(res.status, 400);
  t.is(((await res.json()) as { error: string }).error, 'invalid_grant');
  t.false(await admin.grants.revoke(ann.userId, 'agent'), 'nothing left to revoke');
  t.is(told.length, 1, 'told once');
});

test("clients.revoke removes a registered client and every grant of it, whoever's, told once each; its refresh tokens are refused and other clients' grants live on", async (t) => {
  const r = await serverRig(t, { registration: 'open' });
  const told = revocations(r);
  const registered = await registerClient(r, { client_name: 'Registered agent' });
  const confidential = await registerClient(r, { token_endpoint_auth_method: 'client_secret_basic' });
  const mine: oauth.Client = { client_id: registered.client_id };

  await signUpAndConfirm(r, 'ann@example.com');
  const bob = new Client(r.app.url);
  await signUpAndConfirm(r, 'bob@example.com', PASSWORD, bob);
  // A client not of the options gets a refresh token when it asks for offline_access.
  const annGrant = await codeFlow(r, r.client, mine, 'notes:read offline_access');
  const bobGrant = await codeFlow(r, bob, mine, 'notes:write offline_access');
  const annAgent = await codeFlow(r, r.client, agent);

  const admin = r.app.auth.authorizationServer!;
  const clients = await admin.clients.list();
  t.deepEqual(
    clients.map((c) => [c.id, c.source]),
    [
      ['agent', 'options'],
      [registered.client_id, 'registered'],
      [confidential.client_id, 'registered'],
    ],
  );
  t.like(clients[1], { name: 'Registered agent', confidential: false, redirectURIs: [REDIRECT] });
  t.true(clients[2]!.confidential);
  t.false(JSON.stringify(clients).includes(String(confidential.client_secret)), 'never a secret');

  t.true(await admin.clients.revoke(registered.client_id));
  await until(() => told.length >= 2, 'grant_revoked told');
  t.deepEqual(
    told.map((e) => e.sid).sort(),
    [annGrant.sid, bobGrant.sid].sort(),
    "every family of the client, each told once, and no other client's",
  );
  t.true(told.every((e) => e.clientId === registered.client_id && e.reason === 'revoked'));
  for (const g of [annGrant, bobGrant]) {
    t.not((await refresh(r, mine, g.refreshToken)).status, 200);
    t.deepEqual(
      (await admin.grants.list(g.userId)).filter((a) => a.clientId === registered.client_id),
      [],
      'gone from the connected apps',
    );
  }
  t.deepEqual(
    (await admin.clients.list()).map((c) => c.id),
    ['agent', confidential.client_id],
  );
  t.is((await refresh(r, agent, annAgent.refreshToken)).status, 200, "the options client's grant lives on");
  t.false(await admin.clients.revoke(registered.client_id), 'nothing left of it');
  t.is(told.length, 2);
});

test('bad arguments are TypeErrors naming them; a client of the options is removed from the options, not here', async (t) => {
  const r = await serverRig(t);
  const admin = r.app.auth.authorizationServer!;
  const cases: Array<[Promise<unknown>, RegExp]> = [
    [admin.grants.list(undefined as never), /grants\.list\(\) requires userId/],
    [admin.grants.list(''), /grants\.list\(\) requires userId/],
    [admin.grants.revoke(42 as never, 'agent'), /grants\.revoke\(\) requires userId/],
    [admin.grants.revoke('local_acct_x', ''), /grants\.revoke\(\) requires clientId/],
    [admin.clients.revoke(null as never), /clients\.revoke\(\) requires clientId/],
    [admin.clients.revoke('agent'), /client "agent" is one of authorizationServer\.clients/],
  ];
  for (const [call, message] of cases) await t.throwsAsync(call, { instanceOf: TypeError, message });
  t.deepEqual(
    (await admin.clients.list()).map((c) => c.id),
    ['agent'],
    'still there',
  );
});

test('without the authorizationServer option there is no auth.authorizationServer nor its feature', async (t) => {
  const app = await startApp({
    secret: 'no-as-secret-0123456789abcdefghijkl',
    providers: [{ kind: 'direct', name: 'direct', checker: () => true }],
  });
  t.teardown(() => app.close());
  await app.auth.ready;
  t.true('authorizationServer' in app.auth);
  t.is(app.auth.authorizationServer, undefined);
  t.false(app.auth.features.list().includes('authorization-server'));
});
