/**
 * $.RestClient in Chromium: every row of the spec's request-shape table and the URL rules
 * (ids, singletons, stripTrailingSlash, url option, custom verbs, encoding), with jQuery 3 and 4.
 */
import test from 'ava';
import { JQUERIES, useBrowserHarness, type RecordedRequest } from '../helpers/browser.js';

const h = useBrowserHarness(test);

const shape = (r: RecordedRequest, base: string) => `${r.method} ${r.url.slice(base.length)}`;

for (const jq of JQUERIES) {
  test(`${jq}: resource.create(data, params) POSTs <base>/<name>/ with data in the body and params in the query`, async (t) => {
    const {
      requests: [r],
      base,
    } = await h.run(jq, async ({ $, base, settle }) => {
      await settle(new $.RestClient(base).add('foo').create({ a: 1 }, { q: 2 }));
    });
    t.is(shape(r!, base), 'POST /foo/?q=2');
    t.is(r!.body, 'a=1');
  });

  test(`${jq}: resource.read(id) GETs <base>/<name>/<id>/`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo');
      await settle(foo.read(42));
      await settle(foo.read(0));
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['GET /foo/42/', 'GET /foo/0/'],
    );
    t.is(requests[0]!.body, '');
  });

  test(`${jq}: resource.read() GETs the collection <base>/<name>/`, async (t) => {
    const {
      requests: [r],
      base,
    } = await h.run(jq, async ({ $, base, settle }) => {
      await settle(new $.RestClient(base).add('foo').read());
    });
    t.is(shape(r!, base), 'GET /foo/');
  });

  test(`${jq}: resource.update(id, data) PUTs <base>/<name>/<id>/ with data in the body`, async (t) => {
    const {
      requests: [r],
      base,
    } = await h.run(jq, async ({ $, base, settle }) => {
      await settle(new $.RestClient(base).add('foo').update(42, { name: 'x y' }));
    });
    t.is(shape(r!, base), 'PUT /foo/42/');
    t.is(r!.body, 'name=x+y');
    t.regex(r!.headers['content-type']!, /^application\/x-www-form-urlencoded/);
  });

  test(`${jq}: resource.destroy(id) and resource.del(id) send DELETE <base>/<name>/<id>/`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo');
      await settle(foo.destroy(42));
      await settle(foo.del(43));
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['DELETE /foo/42/', 'DELETE /foo/43/'],
    );
    t.false('content-type' in requests[0]!.headers, 'no data means no body and no Content-Type');
  });

  test(`${jq}: nested.read(id1) GETs <base>/<parent>/<id1>/<name>/`, async (t) => {
    const {
      requests: [r],
      base,
    } = await h.run(jq, async ({ $, base, settle }) => {
      await settle(new $.RestClient(base).add('foo').add('baz').read(42));
    });
    t.is(shape(r!, base), 'GET /foo/42/baz/');
  });

  test(`${jq}: nested.read(id1, id2) GETs <base>/<parent>/<id1>/<name>/<id2>/`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const forum = new $.RestClient(base).add('forum');
      await settle(forum.add('post').read('x', 21));
      await settle((forum as any).post.add('comment').read(42, 21, 7));
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['GET /forum/x/post/21/', 'GET /forum/42/post/21/comment/7/'],
    );
  });

  test(`${jq}: resource.<custom>(data) sends the custom method to <base>/<name>/<verb_url>/`, async (t) => {
    const {
      requests: [r],
      base,
    } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo');
      foo.addVerb('bang', 'patch');
      await settle((foo as any).bang({ a: 1 }));
    });
    t.is(shape(r!, base), 'PATCH /foo/bang/');
    t.is(r!.body, 'a=1');
  });

  test(`${jq}: resource.<custom>(id, data) sends the custom method to <base>/<name>/<id>/<verb_url>/`, async (t) => {
    const {
      requests: [r],
      base,
    } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo');
      const bang = foo.addVerb('bang', 'POST');
      await settle(bang(42, { a: 1 }));
    });
    t.is(shape(r!, base), 'POST /foo/42/bang/');
  });

  test(`${jq}: rule 1 - a resource at depth n takes n-1 or n ids, outermost first`, async (t) => {
    const { value, requests, base } = await h.run(jq, async ({ $, base, settle, caught }) => {
      const c = new $.RestClient(base);
      const comment = c.add('a').add('b').add('c');
      await settle(comment.read(1, 2));
      await settle(comment.read(1, 2, 3));
      return [caught(() => comment.read(1)), caught(() => comment.read(1, 2, 3, 4))].map((e) => e && e.message);
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['GET /a/1/b/2/c/', 'GET /a/1/b/2/c/3/'],
    );
    t.deepEqual(value, [
      'jquery.rest: Invalid number of ID arguments, required 2 or 3, provided 1',
      'jquery.rest: Invalid number of ID arguments, required 2 or 3, provided 4',
    ]);
  });

  test(`${jq}: rule 2 - a singleton has no id segment and its children keep counting ids`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base);
      const bar = c.add('foo').add('bar', { isSingle: true });
      const bazz = bar.add('bazz');
      await settle(bazz.read(42, 21));
      await settle(bazz.read(42));
      await settle(bar.read(42));
      await settle(c.add('me', { isSingle: true }).read());
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['GET /foo/42/bar/bazz/21/', 'GET /foo/42/bar/bazz/', 'GET /foo/42/bar/', 'GET /me/'],
    );
  });

  test(`${jq}: rule 4 - stripTrailingSlash removes the final slash, before any query string`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base, { stripTrailingSlash: true }).add('foo');
      const search = foo.addVerb('search', 'GET');
      await settle(foo.read(42));
      await settle(foo.read());
      await settle(foo.read(42, {}, { q: 1 }));
      await settle(foo.read(5, { x: 1 }));
      await settle(search(42, {}, { q: 1 }));
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['GET /foo/42', 'GET /foo', 'GET /foo/42?q=1', 'GET /foo/5?x=1', 'GET /foo/42/search?q=1'],
    );
  });

  test(`${jq}: rule 5 - the url option replaces the name in the path and is not inherited`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo', { url: 'fancy' });
      await settle(foo.read(42));
      await settle(foo.add('baz').read(42, 1));
      await settle(foo.addVerb('bang', 'POST', { url: 'do-bang' })(42));
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['GET /fancy/42/', 'GET /fancy/42/baz/1/', 'POST /fancy/42/do-bang/'],
    );
  });

  test(`${jq}: the query string always goes after a custom verb's segment`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo');
      const search = foo.addVerb('search', 'GET');
      const bang = foo.addVerb('bang', 'POST');
      await settle(search({ q: 'x' }));
      await settle(bang(42, { a: 1 }, { v: 2 }));
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['GET /foo/search/?q=x', 'POST /foo/42/bang/?v=2'],
    );
  });

  test(`${jq}: ids are URL-encoded as single path segments`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo');
      await settle(foo.read('a b/c?d=1#e'));
      await settle(foo.read('$&'));
      await settle(foo.read('é'));
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['GET /foo/a%20b%2Fc%3Fd%3D1%23e/', 'GET /foo/%24%26/', 'GET /foo/%C3%A9/'],
    );
  });

  test(`${jq}: a verb added on the root uses <base>/<verb_url>/ and takes no ids`, async (t) => {
    const { value, requests, base } = await h.run(jq, async ({ $, base, settle, caught }) => {
      const c = new $.RestClient(base);
      const ping = c.addVerb('ping', 'GET');
      await settle(ping());
      return caught(() => ping(1))!.message;
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['GET /ping/'],
    );
    t.is(value, 'jquery.rest: Invalid number of ID arguments, required 0 or 0, provided 1');
  });

  test(`${jq}: the base is joined to the first segment with exactly one slash; absolute bases work`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      await settle(new $.RestClient(base + '/').add('a').read(1));
      await settle(new $.RestClient(location.origin + base).add('b').read(2));
      await settle(new $.RestClient(base).add('c').read());
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['GET /a/1/', 'GET /b/2/', 'GET /c/'],
    );
  });

  test(`${jq}: create, update and destroy also accept the id count of the collection or the item`, async (t) => {
    const { requests, base } = await h.run(jq, async ({ $, base, settle }) => {
      const foo = new $.RestClient(base).add('foo');
      await settle(foo.create(5, { a: 1 }));
      await settle(foo.update({ a: 1 }));
      await settle(foo.destroy());
    });
    t.deepEqual(
      requests.map((r) => shape(r, base)),
      ['POST /foo/5/', 'PUT /foo/', 'DELETE /foo/'],
    );
  });
}
