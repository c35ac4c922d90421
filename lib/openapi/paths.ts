import { redirectDoc } from '../providers/core/route-docs.js';
import { ref, sessionSecurity, type Schema } from './components.js';

/**
 * The routes a configuration serves, as OpenAPI path items. Core routes are written here once; a
 * provider's come from what it is (its callback, its own actions), the features' from the options that
 * turn them on. Paths carry the configured prefixes (`authRoutePath`, `avatarRoutePath`).
 */

type Operation = Record<string, unknown>;
export type PathItem = Record<string, Operation>;

const json = (schema: Schema, description: string) => ({ description, content: { 'application/json': { schema } } });
const error = (description: string) => json(ref('Error'), description);
const redirect = redirectDoc('a redirect (Location)');
const empty = (description: string) => ({ description });

/** The error answers any route may give, beside its own. */
const COMMON_ERRORS = { '4XX': error('refused: the body says why (`code`)'), '5XX': error('a backend is away or failed (`code`)') };

function op(summary: string, responses: Record<string, unknown>, more: Operation = {}): Operation {
  return { summary, ...more, responses: { ...responses, ...COMMON_ERRORS } };
}

/** The routes every configuration has. */
export function corePaths(prefix: string, basic: boolean): Record<string, PathItem> {
  const logout = op('Ends the session of this browser (cookies cleared) and its token', { 200: empty('logged out (an empty text body)') });
  return {
    [`${prefix}/list`]: {
      get: op('The configured providers', { 200: json(ref('ProviderList'), 'names, or `{name, kind}` with `details=1`') }, {
        parameters: [{ name: 'details', in: 'query', schema: { enum: ['1', 'true'] } }],
      }),
    },
    [`${prefix}/user`]: { get: op("The request's user", { 200: json(ref('User'), 'the user') }, { security: sessionSecurity(basic) }) },
    [`${prefix}/status`]: { get: op('Whether the request is logged in', { 200: json(ref('Status'), 'the status') }) },
    [`${prefix}/logout`]: { get: logout, post: logout },
  };
}

/** What the service knows of one provider: its name, kind, which routes it has and what it says of them. */
export interface ProviderRoutes {
  name: string;
  kind: string;
  callback: boolean;
  /** Its own actions (`register/options`, `*` for a path segment of its choosing). */
  actions: string[];
  /** The kind's own operation objects by route and method (Provider.routeDocs), where it gives them. */
  docs?: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, unknown>>>>>>;
}

/** The kind's own description of `route` `method`, with the common error answers (its own 4XX/5XX win); else `generic`. */
function described(p: ProviderRoutes, route: string, method: string, generic: Operation): Operation {
  const own = p.docs?.[route]?.[method];
  if (!own) return generic;
  return { summary: generic.summary, tags: [p.name], ...own, responses: { ...COMMON_ERRORS, ...(own.responses as object) } };
}

/** A provider's login, callback, logout and own routes. */
export function providerPaths(prefix: string, p: ProviderRoutes): Record<string, PathItem> {
  const base = `${prefix}/${p.name}`;
  const tags = [p.name];
  const step = (what: string) =>
    op(`${what} (${p.kind})`, { 200: json({ oneOf: [ref('User'), ref('MfaRequired')] }, 'the user, or a second step due'), 302: redirect, 303: redirect }, { tags });
  const paths: Record<string, PathItem> = {
    [`${base}/login`]: { get: described(p, 'login', 'get', step('Starts or completes a login')), post: described(p, 'login', 'post', step('Completes a login with credentials')) },
    [`${base}/logout`]: { get: op('Logs out', { 200: empty('logged out') }, { tags }), post: op('Logs out', { 200: empty('logged out') }, { tags }) },
  };
  if (p.callback) {
    paths[`${base}/callback`] = { get: described(p, 'callback', 'get', step('The provider comes back')), post: described(p, 'callback', 'post', step('The provider comes back with a form post')) };
  }
  for (const action of p.actions) {
    const path = action === '*' ? `${base}/{id}` : `${base}/${action}`;
    const own = op(`${p.kind}: ${action === '*' ? 'an item by id' : action}`, { 200: json({}, 'its answer'), 201: json({}, 'created'), 204: empty('done') }, {
      tags,
      ...(action === '*' ? { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] } : {}),
    });
    paths[path] = { get: described(p, action, 'get', own), post: described(p, action, 'post', own), delete: described(p, action, 'delete', own) };
  }
  return paths;
}

/** The routes the options turn on: the key set, the session list, the second factor. */
export function featurePaths(prefix: string, f: { jwks: boolean; mfa: boolean }, basic: boolean): Record<string, PathItem> {
  const session = { security: sessionSecurity(basic) };
  const paths: Record<string, PathItem> = {
    [`${prefix}/sessions`]: { get: op("The user's sessions, one per login", { 200: json({ type: 'array', items: ref('Session') }, 'newest first') }, session) },
    [`${prefix}/sessions/revoke-others`]: {
      post: op('Ends every other session of the user', { 200: json({ type: 'object', required: ['ended', 'current'], properties: { ended: { const: 'others' }, current: { type: 'string' } } }, 'ended') }, session),
    },
    [`${prefix}/sessions/{sid}`]: {
      delete: op('Ends one session', { 204: empty('ended') }, { ...session, parameters: [{ name: 'sid', in: 'path', required: true, schema: { type: 'string', maxLength: 128 } }] }),
    },
  };
  if (f.jwks) paths[`${prefix}/.well-known/jwks.json`] = { get: op('The public keys session tokens are signed with', { 200: json(ref('KeySet'), 'current key first') }) };
  if (f.mfa) Object.assign(paths, mfaPaths(prefix));
  return paths;
}

function mfaPaths(prefix: string): Record<string, PathItem> {
  const any = (summary: string) => op(summary, { 200: json({ type: 'object' }, 'its answer') });
  return {
    [`${prefix}/mfa`]: { get: any("The user's second factors") },
    [`${prefix}/mfa/totp/setup`]: { post: any('Starts a TOTP set-up: secret, otpauth URL, QR code') },
    [`${prefix}/mfa/totp/confirm`]: { post: any('Turns TOTP on with a first code; answers the recovery codes') },
    [`${prefix}/mfa/totp`]: { delete: any('Turns TOTP off') },
    [`${prefix}/mfa/recovery-codes`]: { post: any('New recovery codes') },
    [`${prefix}/mfa/verify`]: { post: op('The second step, or a step-up, with a code', { 200: json(ref('User'), 'the user'), 303: redirect }) },
    [`${prefix}/mfa/passkey/options`]: { post: any('A passkey challenge for the second step') },
    [`${prefix}/mfa/passkey`]: { post: op('The second step with a passkey', { 200: json(ref('User'), 'the user'), 303: redirect }) },
    [`${prefix}/mfa/page`]: { get: op('The second-step page', { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } }) },
  };
}

/** The avatar route. */
export function avatarPaths(avatarPrefix: string): Record<string, PathItem> {
  return {
    [`${avatarPrefix}/{id}`]: {
      get: op('A stored avatar', { 200: { description: 'the image', content: { 'image/*': { schema: { type: 'string', contentMediaType: 'image/*' } } } }, 304: empty('not modified (ETag)') }, {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-fA-F]{40}\\.image$' } }],
      }),
    },
  };
}
