/**
 * $.RestClient in Chromium: options and their inheritance, no leaks between resources, verbs
 * and aliases, every error text, show(), and the three built files (script tag, minified, ESM),
 * with jQuery 3 and 4.
 */
import test from 'ava';
import { JQUERIES, openPluginPage, runInPage, useBrowserHarness } from '../helpers/browser.js';

const h = useBrowserHarness(test);

const INVALID = 'Must be strings or ints (IDs) followed by one optional object and one optional query params object.';

for (const jq of JQUERIES) {
  test(`${jq}: children inherit options; overrides reach grandchildren, not siblings`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { stripTrailingSlash: true, ajax: { headers: { 'X-A': '1' } } });
      const a = c.add('a', { stripTrailingSlash: false, ajax: { headers: { 'X-B': '2' } } });
      await settle(a.add('kid').read(1, 2));
      await settle(c.add('sib').read(3));
    });
    const [kid, sib] = requests;
    t.is(kid!.url, `${base}/a/1/kid/2/`);
    t.deepEqual([kid!.headers['x-a'], kid!.headers['x-b']], ['1', '2']);
    t.is(sib!.url, `${base}/sib/3`);
    t.deepEqual([sib!.headers['x-a'], sib!.headers['x-b']], ['1', undefined]);
  });

  test(`${jq}: url and isSingle are not inherited`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const me = new $.RestClient(base).add('me', { url: 'self', isSingle: true });
      await settle(me.add('posts').read(7));
    });
    t.is(requests[0]!.url, `${base}/self/posts/7/`);
  });

  test(`${jq}: addVerb options override the resource's options for that verb only`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo');
      const bang = foo.addVerb('bang', 'POST', { stringifyData: true, stripTrailingSlash: true });
      await settle(bang(1, { a: 1 }));
      await settle(foo.create({ a: 1 }));
    });
    t.deepEqual(
      requests.map((r) => [r.url.slice(base.length), r.body]),
      [
        ['/foo/1/bang', '{"a":1}'],
        ['/foo/', 'a=1'],
      ],
    );
  });

  test(`${jq}: options given to one resource never leak into siblings, other clients, defaults or the caller's object`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const given = { ajax: { headers: { 'X-Leak': '1' } }, verbs: { patch: 'PATCH' }, cachableMethods: ['POST'] };
      const snapshot = JSON.stringify(given);
      const c = new $.RestClient(base);
      const a = c.add('a', given);
      const b = c.add('b');
      await settle(b.read());
      await settle(new $.RestClient(base).add('c').read());
      return {
        givenUnchanged: JSON.stringify(given) === snapshot,
        aHasPatch: typeof (a as any).patch === 'function',
        bHasPatch: 'patch' in b,
        bCachable: b.opts.cachableMethods,
        defaults: JSON.stringify($.RestClient.defaults.ajax) + JSON.stringify($.RestClient.defaults.verbs),
      };
    });
    t.deepEqual(value, {
      givenUnchanged: true,
      aHasPatch: true,
      bHasPatch: false,
      bCachable: ['GET'],
      defaults: '{"dataType":"json"}{"create":"POST","read":"GET","update":"PUT","destroy":"DELETE"}',
    });
    t.deepEqual(
      requests.map((r) => r.headers['x-leak']),
      [undefined, undefined],
    );
  });

  test(`${jq}: the verbs option adds, remaps and removes verbs; they use the resource path without a segment`, async (t) => {
    const { value, requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base, { verbs: { patch: 'patch', update: 'POST', destroy: null } });
      const foo = c.add('foo');
      await settle((foo as any).patch(1, { a: 1 }));
      await settle((foo as any).update(1, { a: 1 }));
      return {
        names: Object.keys(foo),
        del: 'del' in foo,
        destroy: 'destroy' in foo,
        custom: (foo as any).patch.custom,
      };
    });
    t.deepEqual(
      requests.map((r) => `${r.method} ${r.url.slice(base.length)}`),
      ['PATCH /foo/1/', 'POST /foo/1/'],
    );
    t.deepEqual(value, { names: ['create', 'read', 'update', 'patch'], del: false, destroy: false, custom: false });
  });

  test(`${jq}: delete is not a verb name: destroy and del are the same function, delete in verbs maps to destroy`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle, caught }) => {
      const foo = new $.RestClient(base).add('foo');
      const legacy = new $.RestClient(base, { verbs: { delete: 'DELETE' } }).add('legacy');
      await settle((legacy as any).del(1));
      return {
        hasDelete: 'delete' in foo || 'delete' in legacy,
        same: foo.del === foo.destroy,
        addDelete: caught(() => foo.addVerb('delete', 'DELETE')),
      };
    });
    t.false(value.hasDelete);
    t.true(value.same);
    t.like(value.addDelete, { message: "jquery.rest: Cannot add Verb: 'delete' is disabled, use 'destroy' or 'del'" });
    t.is(requests[0]!.method, 'DELETE');
  });

  test(`${jq}: changing $.RestClient.defaults affects clients created afterwards only`, async (t) => {
    const page = await openPluginPage(h.browser, h.server, jq);
    try {
      const { requests, base } = await runInPage(page, h.server, async ({ $, base, settle }) => {
        const before = new $.RestClient(base).add('before');
        $.RestClient.defaults.stripTrailingSlash = true;
        const after = new $.RestClient(base).add('after');
        await settle(before.read(1));
        await settle(after.read(1));
      });
      t.deepEqual(
        requests.map((r) => r.url.slice(base.length)),
        ['/before/1/', '/after/1'],
      );
    } finally {
      await page.close();
    }
  });

  test(`${jq}: wrong id counts throw 'Invalid number of ID arguments, required <min> or <max>, provided <count>'`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, caught }) => {
      const c = new $.RestClient(base);
      const foo = c.add('foo');
      const single = foo.add('bar', { isSingle: true });
      const top = c.add('me', { isSingle: true });
      return [
        caught(() => foo.read(1, 2)),
        caught(() => foo.add('baz').read()),
        caught(() => single.read()),
        caught(() => top.read(1)),
      ];
    });
    t.deepEqual(
      value.map((e) => e && e.message),
      [
        'jquery.rest: Invalid number of ID arguments, required 0 or 1, provided 2',
        'jquery.rest: Invalid number of ID arguments, required 1 or 2, provided 0',
        'jquery.rest: Invalid number of ID arguments, required 1 or 1, provided 0',
        'jquery.rest: Invalid number of ID arguments, required 0 or 0, provided 1',
      ],
    );
    t.deepEqual(
      value.map((e) => e && [e.name, e.code]),
      Array(4).fill(['RestClientError', 'invalid_id_count']),
    );
    t.is(requests.length, 0, 'errors are thrown before anything is sent');
  });

  test(`${jq}: arguments that are neither ids nor objects throw 'Invalid argument' naming value and type`, async (t) => {
    const { value } = await h.run(jq, async ({ $, base, caught }) => {
      const foo = new $.RestClient(base).add('foo') as any;
      return [[1, 2], null, undefined, true, NaN, new Date(0), /x/, () => 1]
        .map((bad) => caught(() => foo.read(bad)))
        .concat([caught(() => foo.read({}, {}, {}))]);
    });
    const texts = value.map((e) => e!.message.replace(` ${INVALID}`, ''));
    t.deepEqual(texts.slice(0, 5), [
      'jquery.rest: Invalid argument: 1,2 (array).',
      'jquery.rest: Invalid argument: null (null).',
      'jquery.rest: Invalid argument: undefined (undefined).',
      'jquery.rest: Invalid argument: true (boolean).',
      'jquery.rest: Invalid argument: NaN (number).',
    ]);
    t.regex(texts[5]!, /^jquery\.rest: Invalid argument: .+ \(date\)\.$/);
    t.is(texts[6], 'jquery.rest: Invalid argument: /x/ (regexp).');
    t.regex(texts[7]!, /\(function\)\.$/);
    t.is(texts[8], 'jquery.rest: Invalid argument: [object Object] (object).');
    t.true(value.every((e) => e!.message.endsWith(INVALID) && e!.code === 'invalid_argument'));
  });

  test(`${jq}: option and name errors carry the plugin's name and the exact texts`, async (t) => {
    const { value } = await h.run(jq, async ({ $, base, caught }) => {
      const c = new $.RestClient(base);
      const foo = c.add('foo');
      const R = $.RestClient as any;
      return {
        unknownClient: caught(() => new $.RestClient(base, { bogus: 1 } as any)),
        unknownAdd: caught(() => c.add('x', { toString: 1 } as any)),
        unknownVerb: caught(() => foo.addVerb('v', 'GET', { name: 'x' } as any)),
        badName: caught(() => c.add(5 as any)),
        badVerbName: caught(() => foo.addVerb(null as any, 'GET')),
        badMethod: caught(() => foo.addVerb('v', 5 as any)),
        badBase: caught(() => new R(5)),
        takenResource: caught(() => c.add('foo')),
        takenBuiltIn: caught(() => c.add('show')),
        takenVerbAsResource: caught(() => foo.add('read')),
        takenVerb: caught(() => foo.addVerb('read', 'GET')),
        badCache: caught(() => c.add('y', { cache: -1 })),
      };
    });
    const msg = Object.fromEntries(Object.entries(value).map(([k, e]) => [k, e && e.message]));
    t.deepEqual(msg, {
      unknownClient: "jquery.rest: Unknown option: 'bogus'",
      unknownAdd: "jquery.rest: Unknown option: 'toString'",
      unknownVerb: "jquery.rest: Unknown option: 'name'",
      badName: "jquery.rest: 'name' must be a string",
      badVerbName: "jquery.rest: 'name' must be a string",
      badMethod: "jquery.rest: 'method' must be a string",
      badBase: "jquery.rest: 'url' must be a string",
      takenResource: "jquery.rest: Cannot add Resource: 'foo' already exists",
      takenBuiltIn: "jquery.rest: Cannot add Resource: 'show' already exists",
      takenVerbAsResource: "jquery.rest: Cannot add Resource: 'read' already exists",
      takenVerb: "jquery.rest: Cannot add Verb: 'read' already exists",
      badCache: "jquery.rest: 'cache' must be a number of seconds >= 0",
    });
  });

  test(`${jq}: show() prints URL templates with :ID_n placeholders and verbs with their methods`, async (t) => {
    const page = h.pages[jq];
    const lines: string[] = [];
    const onConsole = (m: { type(): string; text(): string }) => m.type() === 'log' && lines.push(m.text());
    page.on('console', onConsole);
    try {
      const { value } = await h.run(jq, ({ $ }) => {
        const c = new $.RestClient('/rest/api/');
        const foo = c.add('foo');
        foo.add('baz');
        foo.addVerb('bang', 'patch');
        const me = c.add('me', { isSingle: true, url: 'self' });
        me.add('posts', { verbs: { create: null, update: null, destroy: null } });
        return { text: c.show(), name: String(foo) + ' ' + String(c) };
      });
      const expected = [
        'ROOT: /rest/api/',
        '  foo: /rest/api/foo/:ID_1/',
        '    create: POST',
        '    read: GET',
        '    update: PUT',
        '    destroy: DELETE',
        '    bang: PATCH',
        '    baz: /rest/api/foo/:ID_1/baz/:ID_2/',
        '      create: POST',
        '      read: GET',
        '      update: PUT',
        '      destroy: DELETE',
        '  me: /rest/api/self/',
        '    create: POST',
        '    read: GET',
        '    update: PUT',
        '    destroy: DELETE',
        '    posts: /rest/api/self/posts/:ID_1/',
        '      read: GET',
      ];
      t.is(value.text, expected.join('\n'));
      t.is(value.name, 'foo ROOT');
      await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
      t.deepEqual(lines.slice(-expected.length), expected);
    } finally {
      page.off('console', onConsole);
    }
  });

  test(`${jq}: the minified bundle behaves like the full one`, async (t) => {
    const page = await openPluginPage(h.browser, h.server, `${jq}.min`);
    try {
      const { value, requests, base } = await runInPage(page, h.server, async ({ $, base, settle, caught }) => {
        const foo = new $.RestClient(base, { stripTrailingSlash: true }).add('foo');
        await settle(foo.update(1, { a: 1 }, { v: 2 }));
        return [$.RestClient.version, caught(() => foo.read(1, 2))!.message];
      });
      t.deepEqual(value, ['1.0.1', 'jquery.rest: Invalid number of ID arguments, required 0 or 1, provided 2']);
      t.is(requests[0]!.url, `${base}/foo/1?v=2`);
    } finally {
      await page.close();
    }
  });
}

test('the ESM entry takes jQuery as an argument and attaches $.RestClient to it (no global jQuery)', async (t) => {
  const page = await openPluginPage(h.browser, h.server, 'esm');
  try {
    await page.waitForFunction(() => (window as any).esm !== undefined);
    const base = h.server.newBase();
    const value = await page.evaluate(async (base) => {
      const { $, RestClient, again, VERSION, globalJQuery } = (window as any).esm;
      const foo = new RestClient(base).add('foo');
      const data = await new Promise((resolve) => foo.read(9).done(resolve));
      return { same: $.RestClient === RestClient && again === RestClient, VERSION, globalJQuery, data };
    }, base);
    t.like(value, { same: true, VERSION: '1.0.1', globalJQuery: 'undefined' });
    t.is(h.server.under(base)[0]!.url, `${base}/foo/9/`);
  } finally {
    await page.close();
  }
});

test('the script-tag bundle loaded without jQuery fails with a clear error', async (t) => {
  const page = await h.browser.newPage();
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${h.server.origin}/page/bare.html`);
    await page.addScriptTag({ url: '/dist/jquery.rest.js' }).catch(() => undefined);
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    t.deepEqual(errors, ['jquery.rest: load jQuery before jquery.rest.js']);
  } finally {
    await page.close();
  }
});
