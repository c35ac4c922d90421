import test from 'ava';
import { JQUERIES, useBrowserHarness } from '../helpers/browser.js';

const h = useBrowserHarness(test);

for (const jq of JQUERIES) {
  test(`${jq}: smoke`, async (t) => {
    const { value, requests } = await h.run(jq, async ({ $, base, settle }) => {
      const c = new $.RestClient(base);
      const foo = c.add('foo');
      return { v: $.fn.jquery, r: await settle(foo.read(42)), show: c.show() };
    });
    t.log(value, requests);
    t.pass();
  });
}
