/**
 * The client's calls for the user's personal access tokens (the server's `tokens` option,
 * docs/accounts.md#personal-access-tokens): made, listed and revoked by a logged-in session. Each speaks the JSON of
 * `/auth/tokens`.
 */
import { expect } from './login.js';
import type { NewPersonalToken, PersonalToken, PersonalTokenRequest } from './schema.js';
import type { Transport } from './transport.js';

/** What every token call may take: a signal that aborts its request. */
export interface TokenCallOptions {
  signal?: AbortSignal;
}

export function tokenCalls(t: Transport, authPath: string) {
  const path = `${authPath}/tokens`;
  return {
    /**
     * Makes a token (`{ name, scopes?, expiresIn? }`, `expiresIn` in seconds or as `'30d'`). Needs a fresh login
     * (`reauth_required`). The answer's `token` is the secret, shown this once.
     */
    async create(input: PersonalTokenRequest, o: TokenCallOptions = {}): Promise<NewPersonalToken> {
      if (!input || typeof input !== 'object' || typeof input.name !== 'string')
        throw new TypeError('tokens.create(input): input must be { name: string, scopes?: string[], expiresIn? }');
      return expect(
        await t.request('POST', path, { body: input, signal: o.signal }),
        t.url(path),
        (b) => !!b && typeof (b as NewPersonalToken).token === 'string',
        'the new token',
      );
    },
    /** The user's tokens, oldest first, without their secrets. */
    async list(o: TokenCallOptions = {}): Promise<PersonalToken[]> {
      return expect(await t.request('GET', path, { signal: o.signal }), t.url(path), Array.isArray, 'a list');
    },
    /** Revokes one of the user's tokens (`not_found` for one that is not theirs). */
    async revoke(id: string, o: TokenCallOptions = {}): Promise<void> {
      if (typeof id !== 'string' || id === '')
        throw new TypeError('tokens.revoke(id): id must be a token id string (as tokens.list() gives)');
      await t.request('DELETE', `${path}/${encodeURIComponent(id)}`, { signal: o.signal });
    },
  };
}
