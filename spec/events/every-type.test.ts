/**
 * Issue #60: every event type an instance can emit is listed. `auth.eventTypes` holds the core types and those each
 * configured feature declares (the built-in accounts', tokens', second factor's and webhooks', an application's own),
 * frozen; `auth.on('*', listener)` hears every event, each carrying its `type`, and `off('*', listener)` stops it.
 * An app forwarding every event to its SIEM no longer drops the features' ones.
 */
import test from 'ava';
import {
  AUTH_EVENT_TYPES,
  type AuthEvent,
  type AuthEventType,
  type AuthKoaOptions,
  type FeatureModule,
} from '../../lib/index.js';
import { started } from '../helpers/http.js';
import { loggedIn, newToken, tokensRig } from '../personal-tokens/rig.js';
import { turn } from './fixtures.js';

/** An application's own feature that declares one event type of its own. */
const reports: FeatureModule = { name: 'reports', events: ['report_filed'], create: () => ({}) };

/** Accounts with a `password` provider, personal tokens, the second factor, a webhook endpoint and `reports`. */
function fullRig(t: Parameters<typeof tokensRig>[0]) {
  return tokensRig(t, {
    mfa: true,
    service: {
      allowVolatileStores: true,
      // Nothing listens there: the endpoint is here for its feature's event types, not its deliveries.
      webhooks: [{ url: 'http://127.0.0.1:9/in', secret: 'whsec_' + 'a'.repeat(32), events: ['token_revoked'] }],
      features: [reports],
    } as Partial<AuthKoaOptions>,
  });
}

test('auth.eventTypes: the core types and every configured feature’s (accounts, tokens, mfa, webhooks, the app’s own), frozen', async (t) => {
  const r = await fullRig(t);
  const types = r.app.auth.eventTypes;
  for (const type of [
    ...AUTH_EVENT_TYPES,
    'signup',
    'account_confirmed',
    'token_created',
    'token_revoked',
    'mfa_changed',
    'mfa_failed',
    'webhook_failed',
    'webhook_disabled',
    'report_filed',
  ])
    t.true(types.includes(type as AuthEventType), `lists ${type}: ${types.join(', ')}`);
  t.deepEqual(types.slice(0, AUTH_EVENT_TYPES.length), [...AUTH_EVENT_TYPES], 'the core types first, in their order');
  t.is(new Set(types).size, types.length, 'each type once');
  t.true(Object.isFrozen(types));
  t.throws(() => (types as AuthEventType[]).push('login'), { instanceOf: TypeError });
  t.is(r.app.auth.eventTypes, types, 'the same array each time');
  // Every listed type is one auth.on() takes.
  const listener = () => {};
  for (const type of types) t.notThrows(() => r.app.auth.on(type, listener), type);
});

test('auth.eventTypes without features: the core types only, not those of features left off', async (t) => {
  const auth = await started({
    secret: 'x'.repeat(32),
    url: 'http://127.0.0.1:1',
    telemetry: false,
    providers: [{ kind: 'direct', name: 'direct', checker: () => true }],
  });
  t.teardown(() => auth.close());
  t.deepEqual([...auth.eventTypes], [...AUTH_EVENT_TYPES]);
  t.false(auth.eventTypes.includes('token_created'), 'the tokens are not configured: nothing emits token_created');
});

test('on("*") hears a core event and the features’ events, each with its type; off("*") stops it', async (t) => {
  const r = await fullRig(t);
  const heard: AuthEvent[] = [];
  const every = (event: AuthEvent) => {
    heard.push(event);
  };
  r.app.auth.on('*', every);
  // A typed listener added after the '*' one: it runs after it for the same event, so it says when `every` ran.
  const created: AuthEvent[] = [];
  r.app.auth.on('token_created', (e) => void created.push(e));
  await loggedIn(r);
  await newToken(r.client, { name: 'ci' });
  while (created.length < 1) await turn();
  const types = heard.map((e) => e.type);
  t.true(types.includes('signup'), types.join(', '));
  t.true(types.includes('login'), `a core event: ${types.join(', ')}`);
  t.true(types.includes('token_created'), types.join(', '));
  const token = heard.find((e) => e.type === 'token_created');
  t.like(token, { type: 'token_created', name: 'ci' });
  t.true(Object.isFrozen(token), 'the same frozen event as a typed listener gets');
  t.true((token as AuthEvent | undefined) === created[0], 'one object for every listener');

  r.app.auth.off('*', every);
  const before = heard.length;
  await newToken(r.client, { name: 'second' });
  while (created.length < 2) await turn();
  t.is(heard.length, before, 'off("*") stops it');
});

test('on("*"): a listener that is not a function is a TypeError naming "*"; an unknown type still names the types', async (t) => {
  const auth = await started({
    secret: 'x'.repeat(32),
    url: 'http://127.0.0.1:1',
    telemetry: false,
    providers: [{ kind: 'direct', name: 'direct', checker: () => true }],
  });
  t.teardown(() => auth.close());
  t.throws(() => auth.on('*', 'nope' as never), { instanceOf: TypeError, message: /auth\.on\("\*", listener\)/ });
  t.throws(() => auth.on('**' as never, () => {}), { instanceOf: TypeError, message: /unknown event type "\*\*"/ });
  t.notThrows(() => auth.off('*', () => {}), 'off() of a listener never added does nothing');
});
