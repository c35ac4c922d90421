import type { StateStore } from '../state/types.js';
import { NS, keyOf, subset, union, updateEntry } from './grant-entries.js';
import type { GrantIndex } from './grant-index.js';

/**
 * Consents remembered per user and client, one entry each. Each consent is kept as the pair it was given for
 * (scopes with resources), not merged: allowing `read` on one API and `write` on another does not allow `write` on
 * the first. A new consent replaces those it covers; the most recent few are kept, each for consentTTLMs.
 */

interface Allowed {
  scopes: string[];
  resources: string[];
  at: number;
}

interface ConsentEntry {
  allowed: Allowed[];
}

/** Distinct consents kept per user and client; the oldest goes first. */
const KEPT = 10;

export interface ConsentBookOptions {
  state: StateStore;
  clock: () => number;
  consentTTLMs: number;
  index: GrantIndex;
}

export function consentBook(o: ConsentBookOptions) {
  const { state, clock, consentTTLMs, index } = o;
  const covers = (a: Allowed, scopes: readonly string[], resources: readonly string[]) =>
    subset(scopes, a.scopes) && subset(resources, a.resources);
  /** Each consent lasts consentTTLMs from when it was given, not from the client's latest one. */
  const current = (a: Allowed, now: number) => a.at + consentTTLMs > now;

  async function has(userId: string, clientId: string, scopes: string[], resources: string[]): Promise<boolean> {
    const cur = await state.get<ConsentEntry>(NS.consent, keyOf(userId, clientId));
    const now = clock();
    return (
      !!cur && cur.expiresAt > now && cur.value.allowed.some((a) => current(a, now) && covers(a, scopes, resources))
    );
  }

  async function remember(userId: string, clientId: string, scopes: string[], resources: string[]): Promise<void> {
    const now = clock();
    const until = now + consentTTLMs;
    const given: Allowed = { scopes: union(scopes), resources: union(resources), at: now };
    // Indexed first, so revokeUser() and revokeGrant() find every consent there is.
    await index.addConsent(userId, clientId, until);
    await updateEntry<ConsentEntry>(state, NS.consent, keyOf(userId, clientId), clock, (live) => {
      const others = (live?.value.allowed ?? []).filter(
        (a) => current(a, now) && !covers(given, a.scopes, a.resources),
      );
      return { value: { allowed: [...others, given].slice(-KEPT) }, expiresAt: until };
    });
  }

  async function forget(userId: string, clientId: string): Promise<void> {
    await state.remove(NS.consent, keyOf(userId, clientId));
  }

  return { has, remember, forget };
}

export type ConsentBook = ReturnType<typeof consentBook>;
