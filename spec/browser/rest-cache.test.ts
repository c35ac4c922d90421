/**
 * $.RestClient in Chromium: the cache state table (absent -> stored -> expired / cleared),
 * cachableMethods, autoClearCache, per-resource lifetimes, with an injected clock
 * (`client.cache.now`, or a page-level fake `Date.now`), with jQuery 3 and 4.
 */
import test from 'ava';
import { JQUERIES, openPluginPage, runInPage, useBrowserHarness } from '../helpers/browser.js';

const h = useBrowserHarness(test);

for (const jq of JQUERIES) {
  test(`${jq}: absent -> stored: a completed cachable request is reused and answers at once`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 5 });
      let now = 1_000;
      c.cache.now = () => now;
      const foo = c.add('foo');
      const first = await settle(foo.read(1));
      now += 4_000;
      const d = foo.read(1);
      let sync = false;
      d.done(() => (sync = true));
      const second = await settle(d);
      return { first, second, sync, size: c.cache.size };
    });
    t.is(requests.length, 1);
    t.deepEqual(value.second, value.first);
    t.true(value.sync, 'done fires synchronously on a cache hit');
    t.is(value.size, 1);
  });

  test(`${jq}: stored -> expired: after cache seconds the next request goes to the server and is stored again`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 5 });
      let now = 0;
      c.cache.now = () => now;
      const foo = c.add('foo');
      const ns: number[] = [];
      ns.push((await settle(foo.read(1))).data.n);
      now = 5_000; // exactly the lifetime: still fresh
      ns.push((await settle(foo.read(1))).data.n);
      now = 5_001; // past it: expired
      ns.push((await settle(foo.read(1))).data.n);
      now = 9_000; // stored again at 5001
      ns.push((await settle(foo.read(1))).data.n);
      return ns;
    });
    t.is(requests.length, 2);
    t.is(value[0], value[1]);
    t.not(value[2], value[1]);
    t.is(value[3], value[2]);
  });

  test(`${jq}: stored -> absent: a non-cachable request clears the entry, its sub-resources and not the list`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 60 });
      const foo = c.add('foo');
      const baz = foo.add('baz');
      await settle(foo.read(42));
      await settle(baz.read(42, 1));
      await settle(foo.read());
      await settle(foo.read(420));
      const before = c.cache.size;
      await settle(foo.update(42, { a: 1 }));
      return { before, after: c.cache.size };
    });
    t.is(requests.length, 5);
    t.deepEqual(value, { before: 4, after: 2 }, '/foo/42/ and /foo/42/baz/1/ cleared; /foo/ and /foo/420/ kept');
  });

  test(`${jq}: a write to the collection (create) clears the list, its query variants and every item`, async (t) => {
    const { value } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 60, stripTrailingSlash: true });
      const foo = c.add('foo');
      const bar = c.add('foobar');
      await settle(foo.read());
      await settle(foo.read({ page: 2 }));
      await settle(foo.read(1));
      await settle(bar.read());
      await settle(foo.create({ a: 1 }));
      return c.cache.size;
    });
    t.is(value, 1, 'only /foobar survives');
  });

  test(`${jq}: autoClearCache false: non-cachable requests leave the entry stored`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 60, autoClearCache: false });
      const foo = c.add('foo');
      const a = await settle(foo.read(1));
      await settle(foo.update(1, { a: 1 }));
      const b = await settle(foo.read(1));
      return a.data.n === b.data.n;
    });
    t.true(value);
    t.is(requests.length, 2);
  });

  test(`${jq}: stored -> absent: client.cache.clear() empties the cache; clear(regexp) removes matching URLs`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 60 });
      const foo = c.add('foo');
      const bar = c.add('bar');
      await settle(foo.read(1));
      await settle(bar.read(1));
      c.cache.clear(/\/bar\//);
      const afterRegexp = c.cache.size;
      await settle(foo.read(1));
      c.cache.clear();
      const afterClear = c.cache.size;
      await settle(foo.read(1));
      return { afterRegexp, afterClear };
    });
    t.deepEqual(value, { afterRegexp: 1, afterClear: 0 });
    t.deepEqual(
      requests.map((r) => r.path.replace(/^\/t\d+\/api/, '')),
      ['/foo/1/', '/bar/1/', '/foo/1/'],
    );
  });

  test(`${jq}: cache 0 (the default) stores nothing`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base);
      const foo = c.add('foo');
      await settle(foo.read(1));
      await settle(foo.read(1));
      return c.cache.size;
    });
    t.is(value, 0);
    t.is(requests.length, 2);
  });

  test(`${jq}: cachableMethods decides what is cached; a cachable method never clears`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 60, cachableMethods: ['get', 'POST'] });
      const foo = c.add('foo');
      await settle(foo.read());
      await settle(foo.create({ a: 1 }));
      await settle(foo.create({ a: 1 }));
      await settle(foo.create({ a: 2 }));
      return c.cache.size;
    });
    t.deepEqual(
      requests.map((r) => r.method),
      ['GET', 'POST', 'POST'],
    );
    t.is(value, 3);
  });

  test(`${jq}: only GET is cachable by default, and methodOverride makes writes POST (not cachable)`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 60, methodOverride: true });
      const foo = c.add('foo');
      await settle(foo.read(1));
      await settle(foo.update(1, { a: 1 }));
      await settle(foo.update(1, { a: 1 }));
      return c.cache.size;
    });
    t.is(requests.length, 3);
    t.is(value, 0, 'the override POST cleared /foo/1/');
  });

  test(`${jq}: each resource's inherited cache value is its lifetime`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 1 });
      let now = 0;
      c.cache.now = () => now;
      const slow = c.add('slow', { cache: 60 });
      const kid = slow.add('kid');
      const fast = c.add('fast');
      const off = c.add('off', { cache: 0 });
      for (const call of [() => slow.read(1), () => kid.read(1, 2), () => fast.read(1), () => off.read(1)])
        await settle(call());
      now = 30_000;
      for (const call of [() => slow.read(1), () => kid.read(1, 2), () => fast.read(1), () => off.read(1)])
        await settle(call());
      return c.cache.size;
    });
    t.deepEqual(
      requests.map((r) => r.path.replace(/^\/t\d+\/api/, '')),
      ['/slow/1/', '/slow/1/kid/2/', '/fast/1/', '/off/1/', '/fast/1/', '/off/1/'],
    );
    t.is(value, 3);
  });

  test(`${jq}: entries differ by URL, params, data and headers; each client has its own cache`, async (t) => {
    const { requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 60 });
      const foo = c.add('foo');
      const auth = c.add('auth', { url: 'foo', username: 'u', password: 'p' });
      for (let i = 0; i < 2; i++) {
        await settle(foo.read(1));
        await settle(foo.read(2));
        await settle(foo.read(1, {}, { q: 1 }));
        await settle(foo.read(1, { d: 1 }));
        await settle(auth.read(1));
      }
      const other = new $.RestClient(base, { cache: 60 }).add('foo');
      await settle(other.read(1));
    });
    t.is(requests.length, 6);
  });

  test(`${jq}: failed requests are never stored`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { cache: 60 });
      const foo = c.add('foo');
      await settle(foo.read(1, {}, { status: 500 }));
      await settle(foo.read(1, {}, { status: 500 }));
      return c.cache.size;
    });
    t.is(value, 0);
    t.is(requests.length, 2);
  });

  test(`${jq}: a custom request returning a promise with done is cached like the jqXHR`, async (t) => {
    const { value } = await h.run(jq, async ({ $, base }) => {
      let calls = 0;
      const c = new $.RestClient(base, {
        cache: 60,
        request: () => ($ as any).Deferred().resolve({ call: ++calls }),
      });
      const foo = c.add('foo');
      const got: unknown[] = [];
      foo.read(1).done((d) => got.push(d));
      foo.read(1).done((d) => got.push(d));
      return { calls, got };
    });
    t.deepEqual(value, { calls: 1, got: [{ call: 1 }, { call: 1 }] });
  });

  test(`${jq}: the default cache clock is Date.now, so a page-level fake clock drives expiry`, async (t) => {
    const page = await openPluginPage(h.browser, h.server, jq);
    try {
      const { value, requests } = await runInPage(page, h.server, async ({ $, base, settle }) => {
        let now = 1_000_000;
        Date.now = () => now;
        const foo = new $.RestClient(base, { cache: 2 }).add('foo');
        await settle(foo.read(1));
        now += 2_000;
        await settle(foo.read(1));
        now += 1;
        await settle(foo.read(1));
        return 'done';
      });
      t.is(value, 'done');
      t.is(requests.length, 2);
    } finally {
      await page.close();
    }
  });
}
