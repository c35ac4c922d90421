/**
 * Sign-up followed by a login never tells a free address from a taken one (issue #60): whoever signs up with an
 * address and logs in with the password they chose gets the same 403 `bad_credentials`, byte for byte, whether the
 * address had a confirmed account (the sign-up changed nothing, the password is wrong) or was free (a new
 * unconfirmed account). Only the address's owner learns the difference, from the mail: the right password on an
 * unconfirmed account mails a new link, a wrong one mails nothing. Sign-up itself does the same work either way:
 * one scrypt derivation, counted through the process's async hooks (node:crypto's own SCRYPTREQUEST).
 */
import test from 'ava';
import { createHook } from 'node:async_hooks';
import { Client } from '../helpers/http.js';
import { accountsRig, codeOf, linkIn, login, PASSWORD, post, signUpAndConfirm, tokenOf, whoami } from './rig.js';

/** What an observer compares: the status and the body's bytes. */
async function answerOf(res: Response) {
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()).toString('hex') };
}

test('sign-up then login with the chosen password: a confirmed-taken address and a free one answer byte for byte alike', async (t) => {
  const r = await accountsRig(t);
  await signUpAndConfirm(r, 'taken@example.com', PASSWORD, new Client(r.app.url));
  const chosen = 'the attacker chose this one';
  const signUpThenLogIn = async (email: string) => {
    const browser = new Client(r.app.url);
    const signup = await answerOf(await post(browser, '/auth/local/signup', { email, password: chosen }));
    return { signup, login: await answerOf(await login(browser, email, chosen)) };
  };
  const taken = await signUpThenLogIn('taken@example.com');
  const free = await signUpThenLogIn('free@example.com');
  t.is(taken.signup.status, 202);
  t.deepEqual(taken.signup, free.signup, 'the sign-ups answer alike');
  t.is(taken.login.status, 403);
  const body = JSON.parse(Buffer.from(taken.login.body, 'hex').toString()) as { code: string; error: string };
  t.is(body.code, 'bad_credentials');
  t.regex(body.error, /if you just signed up, confirm your address first/);
  t.deepEqual(free.login, taken.login, 'the logins answer alike');
});

test('the right password on an unconfirmed account mails a new link that confirms; a wrong one mails nothing', async (t) => {
  const r = await accountsRig(t, { service: { loginThrottle: false } });
  await post(r.client, '/auth/local/signup', { email: 'late@example.com', password: PASSWORD });
  await r.smtp.next();

  const res = await login(r.client, 'late@example.com', PASSWORD);
  t.is(res.status, 403);
  t.is(await codeOf(res), 'bad_credentials');
  t.false(r.client.jar.has('JWT'));
  const mail = await r.smtp.next();
  t.deepEqual(mail.envelopeTo, ['late@example.com']);
  const sent = r.smtp.received.length;

  t.is((await login(r.client, 'late@example.com', 'not the password')).status, 403);
  // The mail of a login goes out after its answer; closing the app waits for every such send.
  await r.app.close();
  t.is(r.smtp.received.length, sent, 'a wrong password mailed nothing');
  t.is(r.smtp.received.length, 2, 'the sign-up and the right-password login mailed, nothing else');

  t.truthy(tokenOf(linkIn(mail)), 'the mail carries a confirmation link');
});

test('the new link a login mailed confirms the address and logs in', async (t) => {
  const r = await accountsRig(t);
  await post(r.client, '/auth/local/signup', { email: 'later@example.com', password: PASSWORD });
  await r.smtp.next();
  t.is((await login(r.client, 'later@example.com', PASSWORD)).status, 403);
  const confirmed = await post(r.client, '/auth/local/confirm', { token: tokenOf(linkIn(await r.smtp.next())) });
  t.is(confirmed.status, 200, 'the new link confirms');
  t.is((await whoami(r.client)).status, 201);
});

// Serial: the hook counts every derivation in the process, and the other tests of this file hash too.
test.serial(
  'sign-up costs one scrypt derivation whether the address is free, confirmed-taken or unconfirmed',
  async (t) => {
    const r = await accountsRig(t);
    await signUpAndConfirm(r, 'taken@example.com', PASSWORD, new Client(r.app.url));
    await post(new Client(r.app.url), '/auth/local/signup', { email: 'pending@example.com', password: PASSWORD });
    await r.smtp.next();
    let derivations = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === 'SCRYPTREQUEST') derivations++;
      },
    });
    const cost = async (email: string) => {
      derivations = 0;
      hook.enable();
      try {
        const res = await post(new Client(r.app.url), '/auth/local/signup', { email, password: 'a new passphrase' });
        t.is(res.status, 202, email);
      } finally {
        hook.disable();
      }
      await r.smtp.next(); // each gets a mail: a notice or a link
      return derivations;
    };
    t.is(await cost('free@example.com'), 1, 'a free address');
    t.is(await cost('taken@example.com'), 1, 'a confirmed account');
    t.is(await cost('pending@example.com'), 1, 'an unconfirmed account');
  },
);
