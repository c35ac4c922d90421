import type { PersonalToken } from './store.js';

/** A token as its owner and operators see it: never its secret or its hash. Times are ISO 8601. */
export interface PersonalTokenView {
  id: string;
  name: string;
  scopes: string[];
  created: string;
  /** The last request it authenticated, to the minute; null when never used. */
  lastUsed: string | null;
  /** null: it does not expire. */
  expires: string | null;
}

/** A new token, as `POST /auth/tokens` answers once: its secret beside the view. */
export interface NewPersonalToken extends PersonalTokenView {
  /** The secret, shown this once: only its hash is kept. */
  token: string;
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export function tokenView(t: PersonalToken): PersonalTokenView {
  return {
    id: t.id,
    name: t.name,
    scopes: [...t.scopes],
    created: iso(t.created)!,
    lastUsed: iso(t.lastUsed),
    expires: iso(t.expires),
  };
}
