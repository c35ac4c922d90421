import type { StateStore } from '../../state/types.js';
import { updateEntry } from '../../state/update.js';
import type { User } from '../../user.js';

/**
 * The identity map of account linking : which user each way in logs in
 * as. An identity is named by its own user id, the one its provider gives it without any link (`github_<sha1>`,
 * `local_<account id>`): its `subject`. A subject maps to at most one user id, for good, which the store enforces
 * (of two racing links of one identity, exactly one is made); a user has the identities that map to it, listed
 * through an index changed by compare-and-set. Kept over any durable StateStore (LMDB, PostgreSQL, MongoDB,
 * Redis with persistence).
 */

/** One identity linked to a user. Times are ms since the epoch. */
export interface LinkedIdentity {
  /** The identity's own user id, as its provider names it without a link: the key it is found by. */
  subject: string;
  /** The name of the provider it logs in through. */
  provider: string;
  /** The user id a login through it yields: the account's. Its own `subject` for an identity on its own. */
  userId: string;
  /** What the provider called the user when it was linked, for the list of links. */
  name?: string;
  /** The address the provider reported when it was linked, for the list; never a reason to link. */
  email?: string;
  linkedAt: number;
  /**
   * The user the identity's provider gave at its latest login, when that login was as the identity itself: for an
   * account's own identity, the profile (name, picture, role, attributes) its linked identities log in with.
   */
  profile?: User;
}

/** The identity map of every user, over a state store. */
export interface IdentityStore {
  /** The identity's link; undefined for one never seen with accounts on. */
  get(subject: string): Promise<LinkedIdentity | undefined>;
  /** Links `identity.subject` to `identity.userId`, unless it is linked already, to anyone: `in_use` then. */
  link(identity: LinkedIdentity): Promise<'linked' | 'in_use'>;
  /** The identities that log in as `userId`, in the order they were linked. */
  list(userId: string): Promise<LinkedIdentity[]>;
  /** Unlinks `subject` from `userId`: the link removed, or undefined when it is not one of that user's. */
  unlink(userId: string, subject: string): Promise<LinkedIdentity | undefined>;
  /** Unlinks every identity of `userId` (an account's deletion): the links removed. */
  unlinkAll(userId: string): Promise<LinkedIdentity[]>;
  /** Keeps `profile` as the identity's latest (LinkedIdentity.profile), written only when it changed. */
  remember(subject: string, profile: User): Promise<void>;
}

const IDENTITIES = 'idn';
const USERS = 'idn-user';
/** Links and the user index do not expire: the latest time a state store can hold. */
const FOREVER = 8_640_000_000_000_000;
const TRIES = 16;

/** A user's index: the subjects that may map to them (each checked against its link when read). */
interface UserIndex {
  subjects: string[];
}

export function stateIdentityStore(store: StateStore): IdentityStore {
  async function updateIndex(userId: string, change: (subjects: string[]) => string[]): Promise<void> {
    await updateEntry<UserIndex>(
      store,
      USERS,
      userId,
      (cur) => {
        const before = cur?.subjects ?? [];
        const after = change(before);
        return after === before ? undefined : { subjects: after };
      },
      () => FOREVER,
      TRIES,
    );
  }
  const add = (subject: string) => (subjects: string[]) =>
    subjects.includes(subject) ? subjects : [...subjects, subject];
  const drop = (subject: string) => (subjects: string[]) =>
    subjects.includes(subject) ? subjects.filter((s) => s !== subject) : subjects;

  async function unlink(userId: string, subject: string): Promise<LinkedIdentity | undefined> {
    const cur = await store.get<LinkedIdentity>(IDENTITIES, subject);
    const gone = cur !== undefined && cur.value.userId === userId && (await store.take(IDENTITIES, subject, cur.rev));
    await updateIndex(userId, drop(subject));
    return gone ? cur.value : undefined;
  }

  return {
    async get(subject) {
      return (await store.get<LinkedIdentity>(IDENTITIES, subject))?.value;
    },
    async link(identity) {
      // The index first: a link the index misses could never be listed or unlinked, while an index entry without
      // its link (a crash between the two, or a lost race) is skipped by list() and dropped here.
      await updateIndex(identity.userId, add(identity.subject));
      if (await store.create(IDENTITIES, identity.subject, identity, FOREVER)) return 'linked';
      const holder = await store.get<LinkedIdentity>(IDENTITIES, identity.subject);
      if (holder?.value.userId !== identity.userId) await updateIndex(identity.userId, drop(identity.subject));
      return 'in_use';
    },
    async list(userId) {
      const subjects = (await store.get<UserIndex>(USERS, userId))?.value.subjects ?? [];
      const found = await Promise.all(
        subjects.map(async (s) => (await store.get<LinkedIdentity>(IDENTITIES, s))?.value),
      );
      return found.filter((x): x is LinkedIdentity => x !== undefined && x.userId === userId);
    },
    unlink,
    async remember(subject, profile) {
      const cur = await store.get<LinkedIdentity>(IDENTITIES, subject);
      if (!cur || JSON.stringify(cur.value.profile) === JSON.stringify(profile)) return;
      // A racing login wrote one of its own: either is the latest, so a lost race is not retried.
      await store.replace(IDENTITIES, subject, cur.rev, { ...cur.value, profile }, FOREVER);
    },
    async unlinkAll(userId) {
      const subjects = (await store.get<UserIndex>(USERS, userId))?.value.subjects ?? [];
      const gone: LinkedIdentity[] = [];
      for (const subject of subjects) {
        const link = await unlink(userId, subject);
        if (link) gone.push(link);
      }
      return gone;
    },
  };
}
