import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import { decodePayload } from '../session/jwt.js';
import { keyForHeader, splitJws, verifyJwsSignature, type VerifyKey } from '../session/jws.js';
import { CAEP, KEPT_SID } from './caep.js';
import { RevokedSet } from './revoked.js';

/**
 * The Shared Signals receiver of a verifier (docs/verify.md#revocation-from-the-app): Security Event Tokens from the
 * app, pushed to a path of this service (RFC 8935) or polled from the app (RFC 8936, poller.ts), each verified
 * (the app's key set, `typ` `secevent+jwt`, `iss`, `aud`) and applied to the revoked set the verifier checks.
 */

const PUSH_LIMIT = 64 * 1024;

/** A SET refused, with its RFC 8935 §2.3 / RFC 8936 error code. */
export class SetError extends Error {
  constructor(
    readonly err: 'invalid_request' | 'invalid_key' | 'invalid_issuer' | 'invalid_audience',
    description: string,
  ) {
    super(description);
  }
}

/** What a verifier's receiver tells its listeners (Verifier.on). */
export interface SignalEvents {
  /** A SET was verified and applied. */
  signal: { event: string; jti: string; sid?: string; userId?: string };
  /** The app could not be polled: from now on, tokens not known revoked are accepted as without events. */
  unavailable: { reason: string; since: number };
  /** The app answers polls again. */
  restored: { downMs: number };
}

/** What the receiver is made of (the verifier's checked options and its key source). */
export interface ReceiverParts {
  /** The SETs' `iss` accepted: the app's `issuer` option (verifier), or those a protected resource accepts. */
  issuers: readonly string[];
  audience: string;
  credential: string;
  lifetimeMs: number;
  clock: () => number;
  keys: (kid: string) => Promise<VerifyKey | undefined>;
  emit: <T extends keyof SignalEvents>(type: T, event: SignalEvents[T]) => void;
}

export class SignalReceiver {
  readonly revoked: RevokedSet;
  readonly #digest: Buffer;

  constructor(readonly p: ReceiverParts) {
    this.revoked = new RevokedSet(p.lifetimeMs, p.clock);
    this.#digest = sha256(p.credential);
  }

  /** Whether an Authorization header carries the credential (compared in constant time). */
  authorized(header: string | undefined): boolean {
    const m = /^Bearer +(\S+)$/i.exec(header ?? '');
    return m !== null && timingSafeEqual(sha256(m[1]), this.#digest);
  }

  /** Verifies a SET and applies it; a SetError for one refused, any other error when it cannot be checked now. */
  async accept(token: string): Promise<void> {
    const claims = await this.#verified(token);
    const events = claims.events as Record<string, Record<string, unknown>>;
    const subject = claims.sub_id as Record<string, { id?: unknown } | string>;
    for (const [type, fields] of Object.entries(events)) this.#apply(type, fields, subject, claims);
  }

  /** The push endpoint (RFC 8935 §2): 202 for a SET taken, 400 `{ err, description }`, 401 without the credential. */
  async push(ctx: Context): Promise<void> {
    const answer = (status: number, body?: object) => {
      ctx.status = status;
      ctx.body = body ?? ''; // a 202 has no content (null would make Koa answer 204)
    };
    if (!this.authorized(ctx.get('authorization'))) {
      ctx.set('WWW-Authenticate', 'Bearer');
      return answer(401, { err: 'authentication_failed', description: 'the credential is not the transmitter’s' });
    }
    const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
    if (type !== 'application/secevent+jwt')
      return answer(400, { err: 'invalid_request', description: 'the body must be application/secevent+jwt' });
    const body = await readCapped(ctx.req, PUSH_LIMIT);
    if (body === undefined) return answer(400, { err: 'invalid_request', description: 'the SET is too large' });
    try {
      await this.accept(body.trim());
    } catch (err) {
      if (err instanceof SetError) return answer(400, { err: err.err, description: err.message });
      // The key set cannot be fetched now: the transmitter tries again later.
      return answer(503, { err: 'temporarily_unavailable', description: (err as Error).message });
    }
    answer(202);
  }

  async #verified(token: string): Promise<Record<string, unknown>> {
    let parts: ReturnType<typeof splitJws>;
    let kid: unknown;
    try {
      parts = splitJws(token);
      kid = decodePayload(parts.headerB64).kid;
    } catch {
      throw new SetError('invalid_request', 'not a compact JWS');
    }
    if (typeof kid !== 'string' || kid === '') throw new SetError('invalid_key', 'the SET header names no key');
    const known = await this.p.keys(kid);
    // Not (yet) in the set: a key the app just rotated to, within the set's cooldown. Not a SET refused for good,
    // which the app would bury: one to take again later (push 503, poll neither acknowledged nor reported).
    if (!known) throw new Error(`the key set has no key ${kid} (yet)`);
    let key: VerifyKey;
    try {
      key = keyForHeader(parts.headerB64, (k) => (k === kid ? known : undefined), 'secevent+jwt');
    } catch (err) {
      const why = (err as AuthError).message;
      throw new SetError(/signing method/.test(why) ? 'invalid_key' : 'invalid_request', why);
    }
    if (!verifyJwsSignature(parts, key)) throw new SetError('invalid_key', 'the signature is invalid');
    const claims = decodePayload(parts.payloadB64);
    if (typeof claims.iss !== 'string' || !this.p.issuers.includes(claims.iss))
      throw new SetError('invalid_issuer', `iss is not ${this.p.issuers.join(' or ')}`);
    const aud = Array.isArray(claims.aud) ? (claims.aud as unknown[]) : [claims.aud];
    if (!aud.includes(this.p.audience)) throw new SetError('invalid_audience', `aud is not ${this.p.audience}`);
    const bad =
      typeof claims.jti !== 'string' ||
      typeof claims.iat !== 'number' ||
      !isObject(claims.events) ||
      !isObject(claims.sub_id) ||
      claims.sub !== undefined ||
      claims.exp !== undefined;
    if (bad) throw new SetError('invalid_request', 'not an SSF SET: jti, iat, sub_id and events, no sub or exp');
    return claims;
  }

  /** One event of a SET: the session or the user it names refused as docs/verify.md says; others are ignored. */
  #apply(type: string, fields: Record<string, unknown>, subject: Record<string, unknown>, claims: object): void {
    const event = type.startsWith(CAEP) ? type.slice(CAEP.length) : type;
    if (event !== 'session-revoked' && event !== 'credential-change') return;
    const sid = opaque(subject, 'session');
    const userId = opaque(subject, 'user');
    const stamp = typeof fields.event_timestamp === 'number' ? fields.event_timestamp : (claims as { iat: number }).iat;
    if (event === 'session-revoked' && sid !== undefined) this.revoked.session(sid);
    else if (userId !== undefined && event === 'session-revoked') this.revoked.user(userId, stamp * 1000, kept(fields));
    else if (userId === undefined) return;
    const jti = (claims as { jti: string }).jti;
    this.p.emit('signal', { event, jti, ...(sid !== undefined && { sid }), ...(userId !== undefined && { userId }) });
  }
}

/** The session a user-wide session-revoked keeps (the app's "everyone else"), when it names one. */
function kept(fields: Record<string, unknown>): string | undefined {
  const sid = fields[KEPT_SID];
  return typeof sid === 'string' && sid !== '' ? sid : undefined;
}

/** The id of a complex subject's opaque member (RFC 9493 §3.2.4), or of the subject itself for `user`. */
function opaque(subject: Record<string, unknown>, member: 'session' | 'user'): string | undefined {
  const m = subject.format === 'complex' ? subject[member] : member === 'user' ? subject : undefined;
  if (!isObject(m) || m.format !== 'opaque' || typeof m.id !== 'string' || m.id === '') return undefined;
  return m.id;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sha256(v: string): Buffer {
  return createHash('sha256').update(v).digest();
}

/** The body as text, or undefined past `limit` bytes (the rest is read and dropped, so the answer can go out). */
function readCapped(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.once('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
