/**
 * Offers to link, kept for the browser that got `account_exists`: redeemed once, only for the account offered,
 * only within their life (the state store's clock is the test's), the id kept as a hash only.
 */
import test from 'ava';
import { PENDING_LINK_MS, statePendingLinks, type PendingLink } from '../../lib/accounts/links/offers.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { manualClock } from '../helpers/http.js';

const offer: PendingLink = {
  userId: 'local_a1',
  identity: { subject: 'google_77', provider: 'google', email: 'ann@example.com' },
  createdAt: 0,
};

function rig() {
  const clock = manualClock();
  const state = memoryStateStore({ clock });
  return { clock, state, links: statePendingLinks(state, clock) };
}

test('redeemed once by the account offered; a login to another account leaves it as it was', async (t) => {
  const { links } = rig();
  const id = await links.offer(offer, PENDING_LINK_MS);
  t.regex(id, /^[A-Za-z0-9_-]{43}$/);
  t.is(await links.redeem(id, 'local_other'), undefined);
  t.deepEqual(await links.redeem(id, 'local_a1'), offer);
  t.is(await links.redeem(id, 'local_a1'), undefined, 'spent');
});

test('of racing redemptions of one offer, exactly one gets it', async (t) => {
  const { links } = rig();
  const id = await links.offer(offer, PENDING_LINK_MS);
  const got = await Promise.all(Array.from({ length: 10 }, () => links.redeem(id, 'local_a1')));
  t.is(got.filter(Boolean).length, 1);
});

test('an offer ends after its life; a made-up or malformed id finds nothing; the id is kept as a hash only', async (t) => {
  const { clock, state, links } = rig();
  const id = await links.offer(offer, PENDING_LINK_MS);
  const other = await links.offer(offer, PENDING_LINK_MS);
  clock.advance(PENDING_LINK_MS);
  t.is(await links.redeem(id, 'local_a1'), undefined, 'past 15 minutes');
  t.is(await links.redeem('x'.repeat(43), 'local_a1'), undefined);
  t.is(await links.redeem('../../etc', 'local_a1'), undefined);
  t.is(await state.get('idn-offer', other), undefined, 'not found under the id itself');
});
