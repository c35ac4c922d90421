/**
 * Never by email alone: a first login's reported address is offered to an account only from a trusted provider,
 * verified (the boolean), equal to the account's confirmed address as accounts compare addresses; every look-alike
 * (homoglyph, +tag, dot, trailing dot, full-width letter) is another address.
 */
import test from 'ava';
import { offeredByEmail } from '../../lib/accounts/links/email.js';

const ACCOUNT = { email: 'ann@example.com', emailConfirmed: true };
const TRUST = ['google'];
const report = (email: unknown, over: Record<string, unknown> = {}) => ({
  provider: 'google',
  email,
  verified: true,
  ...over,
});

test('the same address, verified, from a trusted provider, for a confirmed account: offered', (t) => {
  t.true(offeredByEmail(report('ann@example.com'), TRUST, ACCOUNT));
  t.true(offeredByEmail(report('  Ann@Example.COM '), TRUST, ACCOUNT), 'case and spaces, as accounts compare');
  // One address written two ways in Unicode (é composed, or e and a combining accent): NFC makes them one.
  t.true(offeredByEmail(report('jose\u0301@example.com'), TRUST, { ...ACCOUNT, email: 'jos\u00e9@example.com' }));
});

test('not offered: an untrusted provider, an unverified address, an unconfirmed account', (t) => {
  t.false(offeredByEmail(report('ann@example.com', { provider: 'github' }), TRUST, ACCOUNT));
  t.false(offeredByEmail(report('ann@example.com'), [], ACCOUNT), 'no trustEmail: never');
  for (const verified of [false, 'true', 1, undefined, null])
    t.false(offeredByEmail(report('ann@example.com', { verified }), TRUST, ACCOUNT), String(verified));
  t.false(offeredByEmail(report('ann@example.com'), TRUST, { ...ACCOUNT, emailConfirmed: false }));
});

test('look-alike addresses are other addresses: homoglyphs, full-width letters, +tags, dots, a trailing dot', (t) => {
  const lookAlikes = [
    '\u0430nn@example.com', // Cyrillic а
    'ann@ex\u0430mple.com',
    '\uff41nn@example.com', // full-width ａ
    'ann+x@example.com',
    'a.nn@example.com',
    'ann@example.com.',
    'ann@example.co',
    'ann@example.com\u200b', // zero-width space
    'ann@@example.com',
    ['ann@example.com'],
    '',
  ];
  for (const email of lookAlikes) t.false(offeredByEmail(report(email), TRUST, ACCOUNT), JSON.stringify(email));
});
