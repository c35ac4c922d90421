/**
 * $.RestClient in Chromium: data versus params (rule 3), bodies, headers (basic auth, method
 * override, ajax headers), deferred results (rule 7) and the `request` option, with jQuery 3 and 4.
 */
import test from 'ava';
import { JQUERIES, useBrowserHarness } from '../helpers/browser.js';

const h = useBrowserHarness(test);

const FORM = /^application\/x-www-form-urlencoded/;

for (const jq of JQUERIES) {
  test(`${jq}: rule 3 - a plain object as the first argument is data; for GET it goes into the query string`, async (t) => {
    const {
      requests: [r],
    } = await h.run(jq, async ({ $, base, settle }) => {
      await settle(new $.RestClient(base).add('foo').read({ a: 1, b: 'x y' }));
    });
    t.is(r!.method, 'GET');
    t.is(r!.query, 'a=1&b=x%20y');
    t.is(r!.body, '');
  });

  test(`${jq}: rule 3 - GET data is merged with params in the query string`, async (t) => {
    const {
      requests: [r],
    } = await h.run(jq, async ({ $, base, settle }) => {
      await settle(new $.RestClient(base).add('foo').read(5, { data: 7 }, { bar: 42 }));
    });
    t.is(r!.path.endsWith('/foo/5/'), true);
    t.is(r!.query, 'bar=42&data=7');
  });

  test(`${jq}: rule 3 - HEAD, like GET, sends data in the query string and has no body`, async (t) => {
    const {
      requests: [r],
    } = await h.run(jq, async ({ $, base, settle }) => {
      await settle(new $.RestClient(base).add('foo').addVerb('peek', 'HEAD')({ a: 1 }));
    });
    t.is(r!.method, 'HEAD');
    t.is(r!.query, 'a=1');
  });

  test(`${jq}: rule 3 - for other methods data is form-encoded in the body with bracket nesting`, async (t) => {
    const {
      requests: [r],
    } = await h.run(jq, async ({ $, base, settle }) => {
      await settle(new $.RestClient(base).add('foo').create({ a: 1, nested: { b: 2 }, list: [1, 2] }));
    });
    t.regex(r!.headers['content-type']!, FORM);
    t.is(r!.body, 'a=1&nested%5Bb%5D=2&list%5B%5D=1&list%5B%5D=2');
    t.is(r!.query, '');
  });

  test(`${jq}: rule 3 - with stringifyData the body is JSON with Content-Type application/json`, async (t) => {
    const { requests } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base, { stringifyData: true }).add('foo');
      await settle(foo.update(1, { a: 1, nested: { b: [2] } }));
      await settle(foo.read({ q: 1 }));
    });
    t.is(requests[0]!.headers['content-type'], 'application/json');
    t.deepEqual(JSON.parse(requests[0]!.body), { a: 1, nested: { b: [2] } });
    t.is(requests[1]!.query, 'q=1', 'GET data still goes into the query string');
    t.is(requests[1]!.body, '');
  });

  test(`${jq}: rule 3 - params always go into the query string, for every method`, async (t) => {
    const { requests } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo');
      await settle(foo.update(1, { a: 1 }, { v: 2 }));
      await settle(foo.destroy(1, {}, { hard: true }));
    });
    t.deepEqual(
      requests.map((r) => [r.method, r.query, r.body]),
      [
        ['PUT', 'v=2', 'a=1'],
        ['DELETE', 'hard=true', ''],
      ],
    );
  });

  test(`${jq}: call data extends the ajax.data option; ajax.data alone is sent without call data`, async (t) => {
    const { requests } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base, { ajax: { data: { token: 't' } } }).add('foo');
      await settle(foo.create({ a: 1 }));
      await settle(foo.read());
      await settle(foo.read({ a: 2 }));
    });
    t.is(requests[0]!.body, 'token=t&a=1');
    t.is(requests[1]!.query, 'token=t');
    t.is(requests[2]!.query, 'token=t&a=2');
  });

  test(`${jq}: an ajax.headers Content-Type wins over the one stringifyData sets`, async (t) => {
    const {
      requests: [r],
    } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, {
        stringifyData: true,
        ajax: { headers: { 'Content-Type': 'application/vnd.api+json' } },
      });
      await settle(c.add('foo').create({ a: 1 }));
    });
    t.is(r!.headers['content-type'], 'application/vnd.api+json');
    t.is(r!.body, '{"a":1}');
  });

  test(`${jq}: username and password together add Authorization: Basic base64(username:password)`, async (t) => {
    const { requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { username: 'admin', password: 's3cret' });
      const foo = c.add('foo');
      await settle(foo.read());
      await settle(foo.create({ a: 1 }));
      await settle(c.add('other', { username: 'jürgen', password: 'pässwörd' }).read());
    });
    t.is(requests[0]!.headers['authorization'], `Basic ${Buffer.from('admin:s3cret').toString('base64')}`);
    t.is(requests[1]!.headers['authorization'], requests[0]!.headers['authorization']);
    const other = requests[2]!.headers['authorization']!;
    t.is(Buffer.from(other.slice('Basic '.length), 'base64').toString('utf8'), 'jürgen:pässwörd');
  });

  test(`${jq}: username without password (or the reverse) sends no Authorization header`, async (t) => {
    const { requests } = await h.run(jq, async ({ $, base, settle }) => {
      await settle(new $.RestClient(base, { username: 'admin' }).add('a').read());
      await settle(new $.RestClient(base, { password: 'x' }).add('b').read());
    });
    t.deepEqual(
      requests.map((r) => r.headers['authorization']),
      [undefined, undefined],
    );
  });

  test(`${jq}: rule 6 - methodOverride sends POST with X-HTTP-Method-Override for non-GET, non-HEAD methods`, async (t) => {
    const { requests } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base, { methodOverride: true }).add('foo');
      foo.addVerb('patch', 'PATCH');
      foo.addVerb('peek', 'HEAD');
      await settle(foo.update(1, { a: 1 }));
      await settle(foo.destroy(1));
      await settle((foo as any).patch(1, { a: 1 }));
      await settle(foo.create({ a: 1 }));
      await settle(foo.read(1));
      await settle((foo as any).peek(1));
    });
    t.deepEqual(
      requests.map((r) => [r.method, r.headers['x-http-method-override']]),
      [
        ['POST', 'PUT'],
        ['POST', 'DELETE'],
        ['POST', 'PATCH'],
        ['POST', 'POST'],
        ['GET', undefined],
        ['HEAD', undefined],
      ],
    );
    t.is(requests[0]!.body, 'a=1', 'the body is kept');
  });

  test(`${jq}: ajax option headers and settings are sent with every request; the plugin's own keys win`, async (t) => {
    const { requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { ajax: { headers: { 'X-App': 'one' }, url: '/ignored', type: 'PUT' } });
      const foo = c.add('foo', { ajax: { headers: { 'X-Res': 'two' } } });
      await settle(foo.read(1));
    });
    t.is(requests.length, 1);
    t.is(requests[0]!.method, 'GET');
    t.is(requests[0]!.headers['x-app'], 'one');
    t.is(requests[0]!.headers['x-res'], 'two');
    t.regex(requests[0]!.headers['accept']!, /^application\/json/, 'default ajax option dataType json');
  });

  test(`${jq}: worked example - authkoa's /auth/user, /auth/list and /auth/logout with X-XSRF-TOKEN from the cookie`, async (t) => {
    const { value, requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      document.cookie = 'XSRF-TOKEN=tok%2Fen; path=/';
      const cookie = (name: string) => {
        const hit = document.cookie.split('; ').find((c) => c.startsWith(name + '='));
        return hit ? decodeURIComponent(hit.slice(name.length + 1)) : '';
      };
      const auth = new $.RestClient(base + '/auth', {
        stripTrailingSlash: true,
        verbs: { create: null, update: null, destroy: null },
        ajax: { beforeSend: (xhr: XMLHttpRequest) => xhr.setRequestHeader('X-XSRF-TOKEN', cookie('XSRF-TOKEN')) },
      });
      const user = auth.add('user', { isSingle: true });
      const list = auth.add('list', { isSingle: true });
      const logout = auth.add('logout', { isSingle: true });
      const me = await settle(user.read());
      await settle(list.read());
      document.cookie = 'XSRF-TOKEN=second; path=/';
      await settle(logout.read());
      return { me: me.ok, verbs: Object.keys(user) };
    });
    t.deepEqual(
      requests.map((r) => `${r.method} ${r.url.slice(base.length)} ${r.headers['x-xsrf-token']}`),
      ['GET /auth/user tok/en', 'GET /auth/list tok/en', 'GET /auth/logout second'],
    );
    t.deepEqual(value, { me: true, verbs: ['read'] });
  });

  test(`${jq}: cross-domain requests go to an absolute base on another origin, with credentials through ajax`, async (t) => {
    const { value, requests, base } = await h.run(
      jq,
      async ({ $, base, arg, settle }) => {
        const remote = new $.RestClient(arg + base, {
          stringifyData: true,
          ajax: { xhrFields: { withCredentials: true }, headers: { 'X-Api-Key': 'k' } },
        });
        const foo = remote.add('foo');
        return [await settle(foo.read(1)), await settle(foo.update(1, { a: 1 }))].map((r) => [
          r.ok,
          r.data && r.data.method,
        ]);
      },
      h.server.otherOrigin,
    );
    t.deepEqual(value, [
      [true, 'GET'],
      [true, 'PUT'],
    ]);
    const real = requests.filter((r) => r.method !== 'OPTIONS');
    t.deepEqual(
      real.map((r) => `${r.method} ${r.url.slice(base.length)}`),
      ['GET /foo/1/', 'PUT /foo/1/'],
    );
    t.true(real.every((r) => r.headers['origin'] === h.server.origin && r.headers['x-api-key'] === 'k'));
    t.true(
      requests.some((r) => r.method === 'OPTIONS'),
      'the browser preflighted the custom header',
    );
  });

  test(`${jq}: rule 7 - done receives (data, textStatus, xhr); fail receives the failed xhr`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo');
      return [await settle(foo.read(1)), await settle(foo.read(1, {}, { status: 500 }))];
    });
    t.like(value[0], { ok: true, textStatus: 'success', status: 200, xhrLike: true });
    t.deepEqual(value[0]!.data, { n: value[0]!.data.n, method: 'GET', url: requests[0]!.url });
    t.like(value[1], { ok: false, textStatus: 'error', status: 500 });
  });

  test(`${jq}: the request option performs the call with (resource, ajax settings) and its result is returned`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base }) => {
      const seen: unknown[] = [];
      const c = new $.RestClient(base, {
        stringifyData: true,
        request: (resource, settings) => {
          seen.push({ resource: String(resource), settings });
          return ($ as any).Deferred().resolve({ fake: true }, 'success', { status: 299 });
        },
      });
      const out: unknown[] = [];
      c.add('foo')
        .update(3, { a: 1 })
        .done((data, textStatus, xhr) => out.push(data, textStatus, xhr.status));
      return { seen, out, base };
    });
    t.is(requests.length, 0, 'nothing reached the server');
    t.deepEqual(value.out, [{ fake: true }, 'success', 299]);
    t.deepEqual(value.seen, [
      {
        resource: 'foo',
        settings: {
          dataType: 'json',
          data: '{"a":1}',
          contentType: 'application/json',
          url: `${value.base}/foo/3/`,
          type: 'PUT',
          headers: {},
        },
      },
    ]);
  });

  test(`${jq}: the request option is inherited and can be set per resource`, async (t) => {
    const { value } = await h.run(jq, async ({ $, base }) => {
      const calls: string[] = [];
      const mk = (tag: string) => (_r: unknown, s: { url?: string }) => {
        calls.push(`${tag} ${s.url!.slice(base.length)}`);
        return ($ as any).Deferred().resolve({});
      };
      const c = new $.RestClient(base, { request: mk('root') });
      const a = c.add('a');
      a.add('kid').read(1);
      c.add('b', { request: mk('b') }).read();
      return calls;
    });
    t.deepEqual(value, ['root /a/1/kid/', 'b /b/']);
  });
}
