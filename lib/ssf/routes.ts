import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { AuthError } from '../errors.js';
import { readJSON } from '../http/body.js';
import { writeJSON } from '../http/respond.js';
import { safeEqual } from '../util/safe-equal.js';
import type { SsfConfig, SsfReceiver } from './options.js';
import type { PollQueue } from './poll-queue.js';
import { EVENTS_SUPPORTED } from './sets.js';

/**
 * The transmitter's routes under authRoutePath (docs/ssf.md): its configuration document (SSF 1.0 §7.1, public),
 * and for a receiver presenting its credential as `Authorization: Bearer`, its stream (§8.1.1.2) and its poll
 * endpoint (RFC 8936). Any other request under `/ssf` without a receiver's credential is 401 and nothing else.
 */

export const PUSH = 'urn:ietf:rfc:8935';
export const POLL = 'urn:ietf:rfc:8936';

/** The URLs the documents name. */
export interface SsfUrls {
  /** The SETs' `iss`: the service's `issuer`. */
  issuer: string;
  jwks: string;
  configuration: string;
  poll: string;
}

export interface SsfRouteParts {
  config: SsfConfig;
  urls: SsfUrls;
  queue: PollQueue;
  /** An AuthError with the feature's code `ssf_unauthorized` (the context's error()). */
  unauthorized: (message: string) => AuthError;
  /** A poll receiver reported a SET it could not take (`setErrs`). */
  refused: (receiver: SsfReceiver, jti: string, event: string, reason: string) => void;
}

/** The transmitter configuration metadata (SSF 1.0 §7.1). */
export function transmitterMetadata(u: SsfUrls): Record<string, unknown> {
  return {
    spec_version: '1_0',
    issuer: u.issuer,
    jwks_uri: u.jwks,
    delivery_methods_supported: [PUSH, POLL],
    configuration_endpoint: u.configuration,
    authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6750' }],
    default_subjects: 'ALL',
  };
}

/** A receiver's stream configuration (SSF 1.0 §8.1.1): one stream per receiver, as the options set it. */
export function streamConfig(r: SsfReceiver, u: SsfUrls): Record<string, unknown> {
  return {
    stream_id: r.key,
    iss: u.issuer,
    aud: r.id,
    delivery: r.push ? { method: PUSH, endpoint_url: r.push } : { method: POLL, endpoint_url: u.poll },
    events_supported: EVENTS_SUPPORTED,
    events_requested: EVENTS_SUPPORTED,
    events_delivered: EVENTS_SUPPORTED,
  };
}

const BODY_LIMIT = 256 * 1024;
const MAX_EVENTS = 1000;
const DEFAULT_EVENTS = 100;

export function mountSsfRoutes(router: Router, p: SsfRouteParts): void {
  const metadata = transmitterMetadata(p.urls);
  const receiverOf = credentialCheck(p);
  router.get('/.well-known/ssf-configuration', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    writeJSON(ctx, 200, metadata);
  });
  router.all('/ssf', receiverOf);
  router.all('/ssf/{*rest}', receiverOf);
  router.all('/ssf/stream', (ctx) => {
    if (ctx.method !== 'GET') throw new AuthError('method_not_allowed', 'streams are set by the ssf option: GET only');
    const r = ctx.state.ssfReceiver as SsfReceiver;
    ctx.set('Cache-Control', 'no-store');
    const id = ctx.query.stream_id;
    // SSF 1.0 §8.1.1.2: without stream_id, the list of the receiver's streams.
    if (id === undefined) return writeJSON(ctx, 200, [streamConfig(r, p.urls)]);
    if (id !== r.key) throw new AuthError('not_found', 'no such stream of this receiver');
    writeJSON(ctx, 200, streamConfig(r, p.urls));
  });
  router.all('/ssf/poll', async (ctx) => {
    if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'poll with a POST (RFC 8936)');
    const r = ctx.state.ssfReceiver as SsfReceiver;
    if (r.push) throw new AuthError('not_found', 'this receiver is pushed to: it has no poll endpoint');
    const ask = pollRequest(await readJSON(ctx, BODY_LIMIT));
    await p.queue.remove(r.key, ask.ack);
    const errs = Object.entries(ask.setErrs);
    const refused = await p.queue.remove(
      r.key,
      errs.map(([jti]) => jti),
    );
    for (const { jti, event } of refused) p.refused(r, jti, event, reasonOf(ask.setErrs[jti]));
    const { sets, more } = await p.queue.read(r.key, ask.maxEvents);
    ctx.set('Cache-Control', 'no-store');
    writeJSON(ctx, 200, { sets: Object.fromEntries(sets.map((s) => [s.jti, s.set])), moreAvailable: more });
  });
}

/** The middleware that names the request's receiver by its credential, or answers 401 with nothing else. */
function credentialCheck(p: SsfRouteParts): (ctx: Context, next: Next) => Promise<void> {
  const digest = (v: string) => createHash('sha256').update(v).digest('base64url');
  const known = p.config.receivers.map((r) => ({ r, digest: digest(r.credential) }));
  return async (ctx, next) => {
    const m = /^Bearer +(\S+)$/i.exec(ctx.get('authorization'));
    // Every receiver's digest is compared, in time that does not depend on which one (if any) matches.
    const given = digest(m?.[1] ?? '');
    let found: SsfReceiver | undefined;
    for (const k of known) if (safeEqual(k.digest, given) && m) found = k.r;
    if (!found) {
      ctx.set('WWW-Authenticate', 'Bearer realm="ssf"');
      const why = m ? 'the credential is not a receiver’s' : 'a receiver’s credential is required (Bearer)';
      throw p.unauthorized(why);
    }
    ctx.state.ssfReceiver = found;
    await next();
  };
}

interface PollRequest {
  ack: string[];
  setErrs: Record<string, { err?: unknown; description?: unknown }>;
  maxEvents: number;
}

/** An RFC 8936 §2.4 poll request, checked: 400 `bad_request` for anything else. */
function pollRequest(body: unknown): PollRequest {
  const bad = (why: string) => new AuthError('bad_request', `poll request: ${why}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const ack = b.ack ?? [];
  if (!Array.isArray(ack) || ack.length > MAX_EVENTS || !ack.every((j) => typeof j === 'string' && j.length <= 256))
    throw bad(`ack must be a list of at most ${MAX_EVENTS} jti strings`);
  const setErrs = b.setErrs ?? {};
  if (typeof setErrs !== 'object' || setErrs === null || Array.isArray(setErrs))
    throw bad('setErrs must be an object of jti: { err, description }');
  if (Object.keys(setErrs).length > MAX_EVENTS) throw bad(`setErrs may name at most ${MAX_EVENTS} SETs`);
  const max = b.maxEvents ?? DEFAULT_EVENTS;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 0) throw bad('maxEvents must be an integer ≥ 0');
  if (b.returnImmediately !== undefined && typeof b.returnImmediately !== 'boolean')
    throw bad('returnImmediately must be a boolean');
  return {
    ack: ack as string[],
    setErrs: setErrs as PollRequest['setErrs'],
    maxEvents: Math.min(max, MAX_EVENTS),
  };
}

function reasonOf(e: { err?: unknown; description?: unknown } | undefined): string {
  const err = typeof e?.err === 'string' ? e.err.slice(0, 64) : 'unknown';
  const description = typeof e?.description === 'string' ? `: ${e.description.slice(0, 200)}` : '';
  return `receiver: ${err}${description}`;
}
