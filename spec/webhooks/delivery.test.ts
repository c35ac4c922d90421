/**
 * Webhooks (issue #51) from a running app over real HTTP: logins through the direct provider emit events, the
 * outbox in the state store keeps them, and the worker POSTs each to a receiver on 127.0.0.1 that checks every
 * signature with the third-party `standardwebhooks` package. Also: only the types an endpoint asked for; a private
 * address refused unless allowed; 410 Gone disables the endpoint; bad options name themselves.
 */
import test from 'ava';
import type { AuthEvent, AuthKoaOptions, WebhooksAdmin } from '../../lib/index.js';
import { started } from '../helpers/http.js';
import { startSessionsApp, SECRET, DIRECT } from '../sessions/fixtures.js';
import { newSecret, startReceiver, type Receiver } from './receiver.js';

async function appWith(t: Parameters<typeof startSessionsApp>[0], webhooks: unknown[]) {
  const app = await startSessionsApp(t, { webhooks } as Partial<AuthKoaOptions>);
  const events: AuthEvent[] = [];
  for (const type of ['webhook_failed', 'webhook_disabled'] as const) app.auth.on(type, (e) => events.push(e));
  return { app, events, admin: app.auth.features.get('webhooks') as WebhooksAdmin };
}

async function receiver(t: Parameters<typeof startSessionsApp>[0]): Promise<Receiver> {
  const r = await startReceiver();
  t.teardown(() => r.close());
  return r;
}

test('every login and logout reaches the receiver, signed as Standard Webhooks says: standardwebhooks verifies each', async (t) => {
  const r = await receiver(t);
  const { app } = await appWith(t, [
    { url: `${r.url}/hooks`, secret: r.secret, events: ['login', 'logout'], allowPrivate: true },
  ]);
  const device = await app.login('alice');
  await device.c.fetch('/auth/logout', { headers: device.c.xsrf() });
  await app.login('bob');
  await r.until(3);
  t.deepEqual(
    r.deliveries.map((d) => d.refusal),
    [undefined, undefined, undefined],
    'every signature verifies',
  );
  const seen = r.deliveries.map((d) => `${d.verified!.type} ${String(d.verified!.data.userId)}`);
  t.true(seen.includes(`login ${device.userId}`) && seen.includes(`logout ${device.userId}`), seen.join(', '));
  t.deepEqual(seen.map((x) => x.split(' ')[0]).sort(), ['login', 'login', 'logout']);
  for (const d of r.deliveries) {
    t.regex(d.id, /^msg_[A-Za-z0-9_-]{22}$/);
    t.is(d.verified!.timestamp, new Date(d.verified!.data.time as number).toISOString());
    t.is(d.headers['content-type'], 'application/json');
  }
});

test('only the types an endpoint asked for; ["*"] is every type but the webhooks’ own', async (t) => {
  const logins = await receiver(t);
  const all = await receiver(t);
  const { app } = await appWith(t, [
    { url: logins.url, secret: logins.secret, events: ['login'], allowPrivate: true },
    { url: all.url, secret: all.secret, events: ['*'], allowPrivate: true },
  ]);
  const device = await app.login('alice');
  await device.c.fetch('/auth/logout', { headers: device.c.xsrf() });
  await all.until(2);
  await logins.until(1);
  t.deepEqual(all.deliveries.map((d) => d.verified?.type).sort(), ['login', 'logout']);
  t.deepEqual(
    logins.deliveries.map((d) => d.verified?.type),
    ['login'],
  );
});

test('a loopback receiver without allowPrivate is never called: webhook_failed says why, and it is tried again later', async (t) => {
  const r = await receiver(t);
  const { app, events } = await appWith(t, [{ url: r.url, secret: r.secret, events: ['login'] }]);
  const failed = new Promise<AuthEvent>((resolve) => app.auth.on('webhook_failed', resolve));
  await app.login('alice');
  t.like(await failed, {
    type: 'webhook_failed',
    endpoint: `${r.url}/`,
    eventType: 'login',
    attempt: 1,
    reason: 'address not allowed',
    dead: false,
  });
  t.is(r.deliveries.length, 0);
  t.false(JSON.stringify(events).includes(r.secret), 'no secret in the events');
});

test('410 Gone disables the endpoint in every process: webhook_disabled, and its messages become dead letters', async (t) => {
  const r = await receiver(t);
  r.status = 410;
  const { app, admin } = await appWith(t, [{ url: r.url, secret: r.secret, events: ['login'], allowPrivate: true }]);
  const disabled = new Promise<AuthEvent>((resolve) => app.auth.on('webhook_disabled', resolve));
  await app.login('alice');
  t.like(await disabled, { endpoint: `${r.url}/` });
  await app.login('bob');
  for (;;) {
    const dead = await admin.dead();
    if (dead.length === 2) {
      t.like(dead, [{ type: 'login', lastError: 'endpoint answered 410 Gone' }, { type: 'login' }]);
      t.regex(dead[1]!.lastError ?? '', /endpoint disabled/);
      break;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.is(r.deliveries.length, 1, 'nothing after the 410');
  t.true(await admin.enable(r.url));
  r.status = 200;
  t.true(await admin.replay((await admin.dead())[1]!.id));
  await r.until(2);
  t.is(r.deliveries[1]!.verified?.type, 'login');
});

test('bad options are start-up TypeErrors naming the option', async (t) => {
  const base = { secret: SECRET, url: 'http://127.0.0.1:1', providers: [DIRECT] };
  const good = { url: 'https://hooks.example/in', secret: newSecret(), events: ['login'] };
  const cases: Array<[unknown, RegExp]> = [
    [{}, /webhooks must be a list/],
    [[{ ...good, url: 'ftp://x' }], /webhooks\[0\]\.url must be an http\(s\) URL/],
    [[{ ...good, secret: 'hunter2' }], /webhooks\[0\]\.secret must be whsec_/],
    [[{ ...good, secret: `whsec_${Buffer.alloc(8).toString('base64')}` }], /at least 24 random bytes/],
    [[{ ...good, events: [] }], /webhooks\[0\]\.events must be a list/],
    [[{ ...good, evnets: ['login'] }], /webhooks\[0\]: unknown option "evnets" \(did you mean "events"\?\)/],
    [[good, good], /each url may be listed once/],
  ];
  for (const [webhooks, message] of cases)
    await t.throwsAsync(started({ ...base, webhooks } as unknown as AuthKoaOptions), {
      instanceOf: TypeError,
      message,
    });
  await t.throwsAsync(started({ ...base, webhooks: [good], allowVolatileStores: false } as unknown as AuthKoaOptions), {
    instanceOf: TypeError,
    message: /stateStore \(where webhooks keeps its outbox\) is a memory store/,
  });
});

test('the avatar fetch’s rules: a redirect is not followed, a receiver that hangs is cut at the time limit, a huge answer is cut', async (t) => {
  const { serve } = await import('../helpers/http.js');
  const { readWebhooksOptions } = await import('../../lib/webhooks/options.js');
  const { webhookSender } = await import('../../lib/webhooks/send.js');
  let followed = 0;
  const target = await serve((_req, res) => {
    followed++;
    res.end('ok');
  });
  const redirecting = await serve((_req, res) => res.writeHead(302, { location: `${target.url}/` }).end());
  const hanging = await serve(() => {}); // never answers
  const huge = await serve((_req, res) => res.end(Buffer.alloc(5 * 1024 * 1024, 'x')));
  for (const s of [target, redirecting, hanging, huge]) t.teardown(() => s.close());
  const secret = newSecret();
  const endpoint = (url: string) =>
    readWebhooksOptions([{ url, secret, events: ['login'], allowPrivate: true, timeout: '1s' }], {
      stateStore: 'lmdb://x',
      allowVolatileStores: false,
    })!.endpoints[0]!;
  const send = webhookSender(Date.now);
  const leased = {
    seq: 1,
    rev: '1',
    message: { id: 'msg_x', endpoint: '', type: 'login', body: '{}', attempts: 0, nextAt: 0, leaseUntil: 0 },
  };
  t.deepEqual(await send(endpoint(redirecting.url), leased), { failed: 'status 302' });
  t.is(followed, 0, 'the redirect was not followed');
  t.deepEqual(await send(endpoint(hanging.url), leased), { failed: 'timeout' });
  t.is(await send(endpoint(huge.url), leased), 'delivered', 'a 2xx with a 5 MB body: delivered, the body cut unread');
  t.deepEqual(await send(endpoint('http://127.0.0.1:1/'), leased), { failed: 'transport ECONNREFUSED' });
  const strict = readWebhooksOptions([{ url: target.url, secret, events: ['login'] }], {
    stateStore: 'lmdb://x',
    allowVolatileStores: false,
  })!.endpoints[0]!;
  t.deepEqual(await send(strict, leased), { failed: 'address not allowed' });
  t.is(followed, 0);
});

test('an event is in the outbox before the answer of the request that told it goes out: a kill after the answer loses none', async (t) => {
  const { memoryStateStore } = await import('../../lib/state/memory.js');
  const r = await receiver(t);
  const inner = memoryStateStore();
  const order: string[] = [];
  let held = false;
  // The outbox's first message write is held until the answer went out, or until 200 turns of the event loop have
  // passed: without the wait, the login would be answered meanwhile and `answered` come first.
  const store = {
    ...Object.fromEntries(
      (['get', 'replace', 'take', 'remove', 'sweep', 'markUsed', 'hit', 'close'] as const).map((m) => [
        m,
        (inner[m] as (...a: unknown[]) => unknown).bind(inner),
      ]),
    ),
    volatile: true,
    async create(ns: string, key: string, value: unknown, exp: number) {
      if (ns === 'wh-msg' && !held) {
        held = true;
        for (let i = 0; i < 200 && !order.includes('answered'); i++) await new Promise((res) => setImmediate(res));
        const made = await inner.create(ns, key, value, exp);
        order.push('kept');
        return made;
      }
      return inner.create(ns, key, value, exp);
    },
  };
  const app = await startSessionsApp(t, {
    stateStore: store,
    webhooks: [{ url: r.url, secret: r.secret, events: ['login'], allowPrivate: true }],
  } as unknown as Partial<AuthKoaOptions>);
  app.server.prependListener('request', (_req, res) => res.once('finish', () => order.push('answered')));
  await app.login('alice');
  t.deepEqual(order, ['kept', 'answered']);
  await r.until(1);
  t.is(r.deliveries[0]!.verified?.type, 'login');
});
