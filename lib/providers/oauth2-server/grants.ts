import { createHash } from 'node:crypto';
import type { Logger } from '../../logger.js';
import { randomId } from '../../session/claims.js';
import { safeEqual } from '../../util/safe-equal.js';
import type { ClaimsRequest } from './claims.js';
import { Expiring } from './store.js';

/**
 * The authorization-code grant both local servers (the dev server and the local OAuth2 server) run:
 * one-use codes bound to a client and a redirect URI, S256 PKCE, the token endpoint's checks and the
 * access tokens the user-info endpoint reads. How each server reads requests, authenticates clients and
 * words its answers stays with it; what a code and a token mean is decided here, once.
 */

/** What an authorization code stands for until it is spent. */
export interface Grant<U> {
  clientId: string;
  redirectURI: string;
  /** The S256 code challenge of the authorization request. */
  challenge?: string;
  scope?: string;
  /** The OpenID `nonce` of the authorization request, echoed in the id_token. */
  nonce?: string;
  /** When the user signed in, in seconds: the id_token's `auth_time`. */
  authTime?: number;
  /** The claims the request's `claims` parameter named (OpenID), per place. */
  claims?: ClaimsRequest;
  /** The sign-in session the code was issued in (OpenID's `sid`): its id_tokens carry it. */
  sid?: string;
  user: U;
}

/** A grant as tokens carry it: every token issued from one code is one family, revoked together. */
export interface Issued<U> {
  grant: Grant<U>;
  family: string;
}

export interface GrantRules {
  codeTTL: number;
  tokenTTL: number;
  /** Lifetime of a refresh token (default: the access token's; only the local server issues them). */
  refreshTTL?: number;
  clock: () => number;
  /**
   * RFC 7636 and RFC 6749 to the letter (the local server): challenges and verifiers must have the RFC's
   * form, a verifier sent for a code issued without a challenge fails, and a code presented twice means
   * it leaked, so the token issued for it is revoked. The dev server, open to any client under
   * development, checks only that the verifier hashes to the challenge.
   */
  strict: boolean;
  /** Makes access tokens (default: 160 random bits). */
  tokenId?: () => string;
  /** Hears of revoked tokens, its lines starting with `label`. */
  log: Logger;
  label: string;
}

/** The client at the token endpoint: one that proved who it is, or (dev server) only the id it names. */
export interface TokenClient {
  id: string | undefined;
  authenticated: boolean;
}

/** A token endpoint outcome: the access token issued for a grant, or an OAuth2 error (always a 400). */
export type Exchange<U> =
  | (Issued<U> & { token: string; /** The rotated refresh token of a refresh. */ refreshToken?: string })
  | { error: string; description?: string };

/** A refresh token until its lifetime ends: spent once used, kept to recognise its reuse. */
interface RefreshEntry<U> extends Issued<U> {
  spent: boolean;
}

const REFRESH_ENTRIES = 100_000;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The codes and access tokens of one running server, kept in memory for their lifetimes. */
export class GrantBook<U> {
  private readonly codes: Expiring<Grant<U>>;
  /** Spent codes → the family of the tokens issued for each, kept ten code lifetimes to catch a replay. */
  private readonly spent: Expiring<string>;
  private readonly tokens: Expiring<Issued<U>>;
  private readonly refreshTokens: Expiring<RefreshEntry<U>>;
  /** Families revoked (a replayed code, a reused refresh token), kept as long as any of their tokens may live. */
  private readonly revoked: Expiring<true>;

  constructor(private readonly rules: GrantRules) {
    const refreshTTL = rules.refreshTTL ?? rules.tokenTTL;
    this.codes = new Expiring(rules.codeTTL, rules.clock);
    this.spent = new Expiring(rules.codeTTL * 10, rules.clock);
    this.tokens = new Expiring(rules.tokenTTL, rules.clock);
    // Refresh tokens and revoked families live for days: room for ten times the entries of short-lived codes.
    this.refreshTokens = new Expiring(refreshTTL, rules.clock, REFRESH_ENTRIES);
    this.revoked = new Expiring(Math.max(rules.tokenTTL, refreshTTL), rules.clock, REFRESH_ENTRIES);
  }

  /**
   * Whether an authorization request's PKCE parameters are acceptable. Only S256 is: a `plain`
   * challenge would be the verifier itself, readable wherever the authorization URL is logged.
   */
  challengeAccepted(challenge: string | undefined, method: string | undefined, required: boolean): boolean {
    if (!this.rules.strict) return !challenge || method === 'S256';
    if (challenge === undefined && !required) return true;
    return !!challenge && (method ?? 'plain') === 'S256' && CHALLENGE.test(challenge);
  }

  /** Issues a one-use authorization code for `grant`. */
  issueCode(grant: Grant<U>): string {
    const code = randomId();
    this.codes.set(code, grant);
    return code;
  }

  /**
   * The token endpoint's authorization_code grant, in the order its errors are checked: grant type,
   * code (spent here, whatever follows), redirect URI, client, PKCE verifier.
   */
  exchange(form: Record<string, string | undefined>, client: TokenClient): Exchange<U> {
    if (form.grant_type !== 'authorization_code') return { error: 'unsupported_grant_type' };
    const code = form.code ?? '';
    const grant = this.codes.take(code);
    if (!grant) {
      this.revokeReplayed(code);
      return { error: 'invalid_grant', description: 'code is unknown, expired or already used' };
    }
    const misbound = { error: 'invalid_grant', description: 'code was issued to another client or redirect_uri' };
    if (form.redirect_uri !== grant.redirectURI) return misbound;
    // A client that proved who it is holds a code that is not its own; one that only names itself (and
    // need not) is the wrong client.
    if (client.id !== grant.clientId && (client.authenticated || client.id)) {
      return client.authenticated
        ? misbound
        : { error: 'invalid_client', description: 'code was issued to another client' };
    }
    if (!this.verifierMatches(grant.challenge, form.code_verifier))
      return { error: 'invalid_grant', description: 'code_verifier does not match' };
    const issued = { grant, family: randomId() };
    if (this.rules.strict) this.spent.set(code, issued.family);
    return { token: this.accessToken(issued), ...issued };
  }

  /** A refresh token for what `exchange` or `refresh` issued, in the same family. */
  issueRefresh(issued: Issued<U>): string {
    const token = (this.rules.tokenId ?? randomId)();
    this.refreshTokens.set(token, { ...issued, spent: false });
    return token;
  }

  /**
   * The token endpoint's refresh_token grant: the token is spent (rotation), the new access token carries the
   * scope asked for (never more than granted). A spent token presented again means one of the two holders is not
   * the client: the whole family is revoked (RFC 9700 §4.14.2).
   */
  refresh(form: Record<string, string | undefined>, clientId: string): Exchange<U> {
    const entry = this.refreshTokens.get(form.refresh_token ?? '');
    const invalid = { error: 'invalid_grant', description: 'refresh_token is unknown, expired or revoked' };
    if (!entry || this.revoked.get(entry.family)) return invalid;
    if (entry.grant.clientId !== clientId)
      return { error: 'invalid_grant', description: 'refresh_token was issued to another client' };
    if (entry.spent) {
      this.revokeFamily(entry.family, 'a refresh token was used twice');
      return invalid;
    }
    const granted = (entry.grant.scope ?? '').split(' ').filter(Boolean);
    const asked = form.scope === undefined ? granted : form.scope.split(' ').filter(Boolean);
    if (!asked.every((s) => granted.includes(s)))
      return { error: 'invalid_scope', description: 'scope asks for more than was granted' };
    entry.spent = true;
    const grant = { ...entry.grant, scope: asked.join(' ') || undefined };
    const family = entry.family;
    // The new refresh token keeps the scope of the one it replaces (RFC 6749 §6), whatever this access token got.
    const refreshToken = this.issueRefresh({ grant: entry.grant, family });
    return { token: this.accessToken({ grant, family }), grant, family, refreshToken };
  }

  /** What an `Authorization: Bearer <token>` header (or a bare token) stands for, while it lives. */
  bearer(authorization: string): Grant<U> | undefined {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization);
    return m ? this.accessGrant(m[1]) : undefined;
  }

  /** The grant of an access token, while it lives and its family is not revoked. */
  accessGrant(token: string): Grant<U> | undefined {
    const issued = this.tokens.get(token);
    return issued && !this.revoked.get(issued.family) ? issued.grant : undefined;
  }

  private accessToken(issued: Issued<U>): string {
    const token = (this.rules.tokenId ?? randomId)();
    this.tokens.set(token, issued);
    return token;
  }

  private verifierMatches(challenge: string | undefined, verifier: string | undefined): boolean {
    const { strict } = this.rules;
    if (!challenge) return !strict || verifier === undefined;
    if (strict && !(verifier && VERIFIER.test(verifier))) return false;
    return safeEqual(
      createHash('sha256')
        .update(verifier ?? '')
        .digest('base64url'),
      challenge,
    );
  }

  private revokeReplayed(code: string): void {
    const family = this.rules.strict ? this.spent.take(code) : undefined;
    if (family) this.revokeFamily(family, 'an authorization code was used twice');
  }

  private revokeFamily(family: string, why: string): void {
    this.revoked.set(family, true);
    this.rules.log.warn(`${this.rules.label}: ${why}; every token issued from its grant is revoked`);
  }
}
