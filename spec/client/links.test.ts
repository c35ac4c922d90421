/**
 * `authkoa/client`'s `links` calls in Node against a running app over real HTTP (spec/accounts/links-rig.ts: a
 * `password` provider on a real SMTP server, the dev server, oidc-provider, and a `direct` provider here): a
 * credentials identity linked by its login with `?link=1`, listed, unlinked; the URL a redirect link starts at;
 * refusals as AuthClientErrors with the server's code.
 */
import test from 'ava';
import { AuthClientError, createAuthClient } from '../../browser/client.js';
import { linksRig } from '../accounts/links-rig.js';
import { linkIn, PASSWORD, tokenOf } from '../accounts/rig.js';

const staff = { kind: 'direct', name: 'staff', checker: (_user: string, passwd: string) => passwd === 'staff-pass' };

test('links: withCredentials links a direct identity (the session stays the account’s), list, unlink; start gives the URL', async (t) => {
  const r = await linksRig(t, { extraProviders: [staff] });
  const auth = createAuthClient({ baseURL: r.app.url });
  await auth.accounts.signup({ email: 'lia@example.com', password: PASSWORD, name: 'Lia' });
  const confirmed = await auth.accounts.confirm(tokenOf(linkIn(await r.smtp.next())));
  t.is(confirmed.state, 'logged_in');
  const me = await auth.user();

  const linked = await auth.links.withCredentials('staff', { user: 'lia-staff', passwd: 'staff-pass' });
  t.is(linked.id, me!.id, 'answered as the account, still logged in as it');
  t.is((await auth.user())!.id, me!.id);
  t.like(await auth.links.list(), [
    { provider: 'local', primary: true },
    { provider: 'staff', name: 'lia-staff', primary: false },
  ]);

  // The link ended the account's other sessions issued up to its millisecond, at once: the identity's own
  // login comes a second later on the rig's clock, as a person's would.
  r.clock.advance(1000);
  const other = createAuthClient({ baseURL: r.app.url });
  const asStaff = await other.login('staff', { user: 'lia-staff', passwd: 'staff-pass' });
  t.is(asStaff.state, 'logged_in');
  t.is((await other.user())!.id, me!.id, 'the direct identity now logs in as the account');

  const own = await t.throwsAsync(auth.links.unlink('local'));
  t.true(own instanceof AuthClientError);
  t.like(own, { code: 'identity_is_account', status: 409 });
  t.like(await auth.links.unlink('staff'), [{ provider: 'local' }]);
  t.like(await t.throwsAsync(auth.links.unlink('staff')), { code: 'link_not_found', status: 404 });

  const url = new URL(auth.links.start('dev', { from: '/settings', navigate: false }));
  t.is(url.pathname, '/auth/dev/login');
  t.deepEqual(
    [...url.searchParams],
    [
      ['link', '1'],
      ['from', '/settings'],
    ],
  );
  t.throws(() => auth.links.start('no such/provider'), { instanceOf: TypeError });

  r.clock.advance(6 * 60_000);
  t.like(await t.throwsAsync(auth.links.withCredentials('staff', { user: 'lia-staff', passwd: 'staff-pass' })), {
    code: 'reauth_required',
  });
});
