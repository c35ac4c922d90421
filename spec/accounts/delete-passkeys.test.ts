/**
 * What a deleted account leaves behind: nothing that logs in. Its passkeys (the passkey provider's forgetUser)
 * go with it, so a passkey added by the account's owner cannot log in as the deleted user, nor as anyone who
 * signs up with the address again.
 */
import test from 'ava';
import { createAuthClient } from '../../browser/client.js';
import { SoftAuthenticator } from '../helpers/webauthn.js';
import { accountsRig, login, PASSWORD, post, signUpAndConfirm } from './rig.js';

test('DELETE account removes the passkeys its user added: the passkey no longer logs in', async (t) => {
  const r = await accountsRig(t, {
    extraProviders: [{ kind: 'passkey', rpName: 'accounts tests', userVerification: 'required' }],
  });
  await signUpAndConfirm(r, 'keyholder@example.com');
  const authenticator = new SoftAuthenticator(r.app.url, '127.0.0.1');
  // The page's client, on the rig's logged-in cookies: the passkey is added to the account's user.
  const auth = createAuthClient({ baseURL: r.app.url, webauthn: authenticator });
  await auth.login('local', { user: 'keyholder@example.com', passwd: PASSWORD });
  const { id } = await auth.passkeys.register();
  t.deepEqual(
    (await auth.passkeys.list()).map((p) => p.id),
    [id],
  );
  await auth.logout();
  const before = await auth.passkeys.login();
  t.is(before.state, 'logged_in', 'the passkey logs in while the account exists');
  await auth.logout();

  // Adding the passkey ended the user's other sessions at once (endOtherSessionsOnFactorChange), the
  // sign-up's among them: the rig's browser logs in again, a second later on the rig's clock (a login in the
  // very millisecond of the revocation would be refused with it), to delete the account.
  r.clock.advance(1000);
  const relogged = await login(r.client, 'keyholder@example.com', PASSWORD);
  t.is(relogged.status, 200, await relogged.clone().text());
  const deleted = await post(r.client, '/auth/local/account', undefined, 'DELETE');
  t.is(deleted.status, 200, await deleted.clone().text());
  const after = await auth.passkeys.login().then(
    () => 'logged in',
    (err: { code?: string }) => err.code,
  );
  t.is(after, 'passkey_unknown', 'the passkey went with the account');
});
