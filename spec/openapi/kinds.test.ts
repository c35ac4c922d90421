/**
 * Every answer a login of each kind gives, against the document of its app: each kind's login and its
 * refusal run against their real peers (spec/events/kinds.ts), the server records what its auth routes
 * answered (spec/helpers/http.ts `answers`), and each answer must be one the document describes, with a
 * JSON body its schema accepts.
 */
import test from 'ava';
import { Client } from '../helpers/http.js';
import { KINDS } from '../events/kinds.js';
import { contractChecker } from './contract.js';

for (const [name, make] of Object.entries(KINDS)) {
  test(`${name}: every answer of a login and of a refused one is described by auth.openapi()`, async (t) => {
    const kind = await make(t);
    const c = new Client(kind.app.url);
    const done = await kind.login(c);
    t.true(done.status === 200 || done.status === 303, `the login went through (${done.status})`);
    await kind.refuse(new Client(kind.app.url));
    const contract = contractChecker((await kind.app.auth.openapi()) as never);
    t.true(kind.app.answers.length >= 2);
    for (const a of kind.app.answers) {
      const path = contract.template(a.path);
      t.truthy(path, `${a.method} ${a.path} is in the document`);
      const r = contract.check(a.method, path!, a.status, a.body, a.type);
      t.true(
        r.ok,
        `${a.method} ${a.path} ${a.status} ${a.type}: ${r.errors} in ${JSON.stringify(a.body)?.slice(0, 300)}`,
      );
    }
  });
}
