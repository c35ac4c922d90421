/**
 * The identity map of account linking over state stores: memory, and every persistent backend (LMDB files, a real
 * redis-server, a real PostgreSQL, the CongoDB stand-in for MongoDB). An identity maps to one user for good, of
 * racing links exactly one is made, and a user lists and unlinks only their own.
 */
import test, { type ExecutionContext } from 'ava';
import { stateIdentityStore, type LinkedIdentity } from '../../lib/accounts/links/identities.js';
import { useEveryStateStore } from '../helpers/state-backends.js';

const NOW = 1_800_000_000_000;
const identity = (subject: string, userId: string, over: Partial<LinkedIdentity> = {}): LinkedIdentity => ({
  subject,
  provider: subject.split('_')[0]!,
  userId,
  linkedAt: NOW,
  ...over,
});

const backends = useEveryStateStore(test, () => NOW);

for (const [label, open] of backends) {
  const fresh = async (t: ExecutionContext) => {
    const state = await open(t);
    t.teardown(() => state.close().catch(() => {}));
    return { state, store: stateIdentityStore(state) };
  };

  test(`${label}: a link is found by its subject and listed for its user, in the order linked`, async (t) => {
    const { store } = await fresh(t);
    const own = identity('local_a1', 'local_a1');
    const gh = identity('github_9f', 'local_a1', { name: 'ann', email: 'ann@example.com', linkedAt: NOW + 1 });
    t.is(await store.link(own), 'linked');
    t.is(await store.link(gh), 'linked');
    t.deepEqual(await store.get('github_9f'), gh);
    t.deepEqual(await store.list('local_a1'), [own, gh]);
    t.deepEqual(await store.list('github_9f'), [], 'the subject is not a user of its own once linked');
    t.is(await store.get('google_77'), undefined);
  });

  test(`${label}: an identity linked to anyone is in use: another user cannot take it, and nothing of theirs changes`, async (t) => {
    const { store } = await fresh(t);
    t.is(await store.link(identity('github_9f', 'github_9f')), 'linked', 'its own account, from a first login');
    t.is(await store.link(identity('github_9f', 'local_a1')), 'in_use');
    t.is((await store.get('github_9f'))?.userId, 'github_9f');
    t.deepEqual(await store.list('local_a1'), []);
    t.is(await store.link(identity('github_9f', 'github_9f')), 'in_use', 'linked already, to the same user');
    t.is((await store.list('github_9f')).length, 1);
  });

  test(`${label}: 20 racing links of one identity to 20 users: exactly one is made, and only its user lists it`, async (t) => {
    const { store } = await fresh(t);
    const users = Array.from({ length: 20 }, (_, i) => `local_u${i}`);
    const answers = await Promise.all(users.map((u) => store.link(identity('github_race', u))));
    t.is(answers.filter((a) => a === 'linked').length, 1, answers.join(','));
    const winner = (await store.get('github_race'))!.userId;
    for (const u of users) t.is((await store.list(u)).length, u === winner ? 1 : 0, u);
  });

  test(`${label}: unlink takes the user's own link only; unlinkAll every one of theirs`, async (t) => {
    const { store } = await fresh(t);
    for (const x of [identity('local_a1', 'local_a1'), identity('github_9f', 'local_a1'), identity('google_7', 'x')])
      await store.link(x);
    t.is(await store.unlink('x', 'github_9f'), undefined, "another user's link is not theirs to remove");
    t.truthy(await store.get('github_9f'));
    t.is((await store.unlink('local_a1', 'github_9f'))?.subject, 'github_9f');
    t.is(await store.unlink('local_a1', 'github_9f'), undefined, 'once');
    t.is(await store.get('github_9f'), undefined);
    t.is(await store.link(identity('github_9f', 'x')), 'linked', 'an unlinked identity may be linked again');
    t.deepEqual(
      (await store.unlinkAll('local_a1')).map((x) => x.subject),
      ['local_a1'],
    );
    t.deepEqual(await store.list('local_a1'), []);
    t.deepEqual(
      (await store.list('x')).map((x) => x.subject),
      ['google_7', 'github_9f'],
    );
  });

  test(`${label}: an index entry without its link (a crash between the two writes) is skipped and can be unlinked`, async (t) => {
    const { state, store } = await fresh(t);
    await store.link(identity('github_9f', 'local_a1'));
    // The link alone goes, as if the process had died after writing the index of a later link.
    const cur = (await state.get('idn', 'github_9f'))!;
    t.true(await state.take('idn', 'github_9f', cur.rev));
    t.deepEqual(await store.list('local_a1'), []);
    t.is(await store.unlink('local_a1', 'github_9f'), undefined);
    t.deepEqual((await state.get<{ subjects: string[] }>('idn-user', 'local_a1'))?.value.subjects, []);
  });
}
