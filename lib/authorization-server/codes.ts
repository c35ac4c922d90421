import type { StateStore } from '../state/types.js';
import { safeEqual } from '../util/safe-equal.js';
import { NS, newFamilyId, newSecret, sha256 } from './grant-entries.js';
import type { FamilyBook } from './families.js';
import type { CodeGrant, GrantError, GrantStore } from './grant-types.js';

/**
 * Authorization codes in the state store, under their SHA-256: one-use, bound to a client, a redirect URI and an
 * S256 challenge. Redeeming replaces the code's entry by compare-and-set with the family it started, kept ten code
 * lifetimes: of two redemptions exactly one wins, and a later one finds the family and revokes it (RFC 6749 §4.1.2).
 */

type CodeEntry = { state: 'issued'; grant: CodeGrant } | { state: 'spent'; family: string | null };

type Redeemed = Awaited<ReturnType<GrantStore['redeemCode']>>;
type RedeemCheck = Parameters<GrantStore['redeemCode']>[1];

export interface CodeBookOptions {
  state: StateStore;
  clock: () => number;
  codeTTLMs: number;
  families: FamilyBook;
}

/** RFC 7636 §4.2: a base64url SHA-256 is 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** A spent code is remembered this many code lifetimes, to recognise its replay. */
const REPLAY_MEMORY = 10;

const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' && x !== '');

/** A grant the authorization endpoint built wrongly is a programming error: a TypeError naming the field. */
export function checkCodeGrant(g: CodeGrant): void {
  if (typeof g !== 'object' || g === null) throw new TypeError('issueCode() requires a grant object');
  for (const k of ['clientId', 'redirectURI', 'userId'] as const)
    if (typeof g[k] !== 'string' || g[k] === '') throw new TypeError(`issueCode() requires grant.${k} as a string`);
  if (typeof g.challenge !== 'string' || !CHALLENGE.test(g.challenge))
    throw new TypeError('issueCode() requires grant.challenge as an S256 code challenge (43 base64url characters)');
  if (!strings(g.scopes)) throw new TypeError('issueCode() requires grant.scopes as an array of strings');
  if (!strings(g.resources)) throw new TypeError('issueCode() requires grant.resources as an array of strings');
  if (typeof g.authTime !== 'number' || !Number.isFinite(g.authTime))
    throw new TypeError('issueCode() requires grant.authTime in seconds');
  if (g.profile !== undefined && (typeof g.profile !== 'object' || g.profile === null))
    throw new TypeError('issueCode() requires grant.profile as an object of claims');
  if (g.claims !== undefined && !(strings(g.claims?.userinfo) && strings(g.claims?.id_token)))
    throw new TypeError('issueCode() requires grant.claims as { userinfo, id_token } lists of claim names');
}

/** Why the token request does not match the code's grant, in the order checked; undefined when it does. */
function mismatch(grant: CodeGrant, check: RedeemCheck): GrantError<'invalid_grant'> | undefined {
  const refuse = (description: string) => ({ error: 'invalid_grant' as const, description });
  if (check.clientId !== grant.clientId) return refuse('code was issued to another client');
  const redirectOk =
    check.redirectURI === undefined ? grant.redirectURIOmitted === true : check.redirectURI === grant.redirectURI;
  if (!redirectOk) return refuse('redirect_uri differs from the authorization request');
  const { verifier } = check;
  if (typeof verifier !== 'string' || !VERIFIER.test(verifier) || !safeEqual(sha256(verifier), grant.challenge))
    return refuse('code_verifier is missing, malformed or does not match the code_challenge');
  return undefined;
}

export function codeBook(o: CodeBookOptions) {
  const { state, clock, codeTTLMs, families } = o;
  async function issueCode(grant: CodeGrant): Promise<string> {
    checkCodeGrant(grant);
    const code = newSecret();
    const entry: CodeEntry = { state: 'issued', grant };
    if (!(await state.create(NS.code, sha256(code), entry, clock() + codeTTLMs)))
      throw new Error('authorization server: a new code was taken');
    return code;
  }

  async function redeemCode(code: string, check: RedeemCheck): Promise<Redeemed> {
    const unknown = {
      error: 'invalid_grant' as const,
      description: 'code is unknown, expired or already used',
    };
    if (typeof code !== 'string' || code === '') return unknown;
    const key = sha256(code);
    // Twice at most: a compare-and-set lost to another redemption is read again, and then it is a replay.
    for (let i = 0; i < 2; i++) {
      const now = clock();
      const cur = await state.get<CodeEntry>(NS.code, key);
      if (!cur || cur.expiresAt <= now) return unknown;
      if (cur.value.state === 'spent') {
        if (cur.value.family) await families.revoke([cur.value.family], 'code_replay');
        return unknown;
      }
      const { grant } = cur.value;
      const refused = mismatch(grant, check);
      // The code is spent by its first presentation, whatever the checks say: a code sent by the wrong client or
      // with the wrong verifier has leaked, and must not be tried again. The family id is chosen before the write,
      // so a replay that comes while the family is being created still finds what to revoke.
      const family = refused ? null : newFamilyId();
      const spent: CodeEntry = { state: 'spent', family };
      if (!(await state.replace(NS.code, key, cur.rev, spent, now + REPLAY_MEMORY * codeTTLMs))) continue;
      if (refused || family === null) return refused ?? unknown;
      const { clientId, userId, scopes, resources, authTime, profile, claims, sid } = grant;
      const openID = {
        ...(profile && { profile }),
        ...(claims && { claims }),
        ...(typeof sid === 'string' && { sessionId: sid }),
      };
      const started = await families.start({ userId, clientId, scopes, resources, authTime, ...openID }, family);
      return started ? { grant, family: started } : unknown;
    }
    return unknown;
  }

  return { issueCode, redeemCode };
}
