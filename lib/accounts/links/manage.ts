import { accountError } from '../errors.js';
import type { IdentityStore, LinkedIdentity } from './identities.js';

/**
 * An account's links as its owner (`/auth/links`) and an operator (`auth.accounts.links/link/unlink`) see and change
 * them, keeping the account at least one way in.
 */

/** One identity of an account, as listed. */
export interface LinkView {
  /** The identity (its own user id): what unlink() takes to name it among several of one provider. */
  id: string;
  provider: string;
  name?: string;
  email?: string;
  /** When it was linked, ISO 8601. */
  linked: string;
  /** The account's own identity: the one its id is, which cannot be unlinked. */
  primary: boolean;
}

/** What counts an account's ways in beside its identities: a provider's own credentials (passkeys, a password). */
export interface WaysInProvider {
  readonly name: string;
  /** How many ways in the provider holds for a user id (its passkeys; 1 for an account with a password). */
  waysIn?(userId: string): Promise<number>;
}

/** `auth.accounts.links/link/unlink`: an operator's view of an account's identities, by the account's user id. */
export interface LinksAdmin {
  links(userId: string): Promise<LinkView[]>;
  link(userId: string, identity: { subject: string; provider: string; name?: string; email?: string }): Promise<void>;
  /** Unlinks the identity `which` names: its `id` as listed, or its provider when the account has one of it. */
  unlink(userId: string, which: string): Promise<void>;
}

export interface LinksManagerParts {
  identities: IdentityStore;
  /** The configured providers by name: an identity of a provider no longer configured is no way in. */
  provider(name: string): WaysInProvider | undefined;
  providers(): readonly WaysInProvider[];
  clock: () => number;
}

export interface LinksManager {
  list(userId: string): Promise<LinkView[]>;
  /**
   * Unlinks the account's identity `which` names (its id, or its provider when the account has one identity of it:
   * 409 `link_ambiguous` for two): 404 `link_not_found`, 409 `identity_is_account` for its own one, 409
   * `last_login_method` when it is the last way in. The link removed.
   */
  unlink(userId: string, which: string): Promise<LinkedIdentity>;
  /**
   * Links an identity (`subject`, of `provider`) to the account, as an operator does: 409 `identity_in_use`. True
   * when this call linked it, false when it was the account's already.
   */
  link(
    userId: string,
    identity: { subject: string; provider: string; name?: string; email?: string },
  ): Promise<boolean>;
}

export function linksManager(p: LinksManagerParts): LinksManager {
  /** Ways in the account keeps without `without`: its identities of configured providers, and their credentials. */
  async function waysIn(userId: string, identities: LinkedIdentity[]): Promise<number> {
    let count = 0;
    const counted = new Map<string, Set<string>>();
    for (const i of identities) {
      const provider = p.provider(i.provider);
      if (!provider) continue;
      if (!provider.waysIn) count++;
      else counted.set(provider.name, (counted.get(provider.name) ?? new Set()).add(i.subject));
    }
    // The providers that hold credentials for the account itself (passkeys registered by its sessions).
    for (const provider of p.providers()) {
      if (!provider.waysIn) continue;
      const ids = (counted.get(provider.name) ?? new Set<string>()).add(userId);
      for (const id of ids) count += await provider.waysIn(id);
    }
    return count;
  }

  return {
    async list(userId) {
      return (await p.identities.list(userId)).map(view);
    },
    async unlink(userId, which) {
      const all = await p.identities.list(userId);
      const target = all.find((i) => i.subject === which) ?? byProvider(all, which, userId);
      if (!target) throw accountError('link_not_found', `the account has no identity ${which}`);
      if (target.subject === userId)
        throw accountError('identity_is_account', "the account's own identity cannot be unlinked");
      if (
        (await waysIn(
          userId,
          all.filter((i) => i !== target),
        )) === 0
      )
        throw accountError('last_login_method', 'that is the last way to log in to the account');
      const gone = await p.identities.unlink(userId, target.subject);
      if (!gone) throw accountError('account_changed', 'the links changed meanwhile: try again');
      return gone;
    },
    async link(userId, identity) {
      checkIdentity(userId, identity);
      const { subject, provider, name, email } = identity;
      const made = await p.identities.link({
        subject,
        provider,
        userId,
        ...(name !== undefined && { name }),
        ...(email !== undefined && { email }),
        linkedAt: p.clock(),
      });
      if (made === 'linked') return true;
      if ((await p.identities.get(subject))?.userId !== userId)
        throw accountError('identity_in_use', 'that identity is linked to another account already');
      return false;
    },
  };
}

/** An operator's arguments: a TypeError naming the one that is wrong. */
function checkIdentity(userId: unknown, identity: Record<string, unknown> | undefined): void {
  const text = (v: unknown, max: number) => typeof v === 'string' && v !== '' && v.length <= max;
  if (!text(userId, 256)) throw new TypeError('link(userId, identity): userId must be a user id string');
  if (!text(identity?.subject, 256))
    throw new TypeError("link(userId, identity): identity.subject must be the identity's own user id");
  if (!text(identity?.provider, 64)) throw new TypeError('link(userId, identity): identity.provider must be a name');
  for (const k of ['name', 'email'])
    if (identity?.[k] !== undefined && !text(identity[k], 256))
      throw new TypeError(`link(userId, identity): identity.${k} must be a string`);
}

/** The account's one identity of `provider` (a linked one before its own); 409 `link_ambiguous` for several. */
function byProvider(all: LinkedIdentity[], provider: string, userId: string): LinkedIdentity | undefined {
  const linked = all.filter((i) => i.provider === provider && i.subject !== userId);
  if (linked.length > 1)
    throw accountError(
      'link_ambiguous',
      `the account has ${linked.length} identities of ${provider}: unlink one by its id, as GET /links lists it`,
    );
  return linked[0] ?? all.find((i) => i.provider === provider);
}

function view(i: LinkedIdentity): LinkView {
  return {
    id: i.subject,
    provider: i.provider,
    ...(i.name && { name: i.name }),
    ...(i.email && { email: i.email }),
    linked: new Date(i.linkedAt).toISOString(),
    primary: i.subject === i.userId,
  };
}
