/**
 * What a deleted account leaves behind: nothing that logs in. Its passkeys (the passkey provider's forgetUser)
 * go with it, so a passkey added by the account's owner cannot log in as the deleted user, nor as anyone who
 * signs up with the address again.
 */
import test from 'ava';
import { createAuthClient } from '../../browser/client.js';
import { SoftAuthenticator } from '../helpers/webauthn.js';
import { accountsRig, post, signUpAndConfirm } from './rig.js';

test('DELETE account removes the passkeys its user added: the passkey no longer logs in', async (t) => {
  const r = await accountsRig(t, {
    extraProviders: [{ kind: 'passkey', rpName: 'accounts tests', userVerification: 'required' }],
  });
  await signUpAndConfirm(r, 'keyholder@example.com');
  const authenticator = new SoftAuthenticator(r.app.url, '127.0.0.1');
  // The page's client, on the rig's logged-in cookies: the passkey is added to the account's user.
  const auth = createAuthClient({ baseURL: r.app.url, webauthn: authenticator });
  await auth.login('local', { user: 'keyholder@example.com', passwd: 'correct horse battery' });
  const { id } = await auth.passkeys.register();
  t.deepEqual(
    (await auth.passkeys.list()).map((p) => p.id),
    [id],
  );
  await auth.logout();
  const before = await auth.passkeys.login();
  t.is(before.state, 'logged_in', 'the passkey logs in while the account exists');
  await auth.logout();

  const deleted = await post(r.client, '/auth/local/account', undefined, 'DELETE');
  t.is(deleted.status, 200, await deleted.clone().text());
  const after = await auth.passkeys.login().then(
    () => 'logged in',
    (err: { code?: string }) => err.code,
  );
  t.is(after, 'passkey_unknown', 'the passkey went with the account');
});
