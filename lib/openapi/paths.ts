import { emptyTextDoc, redirectDoc } from '../providers/core/route-docs.js';
import { loginSecurity, ref, sessionSecurity, type Schema } from './components.js';

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
  const logout = op('Ends the session of this browser (cookies cleared) and its token', { 200: emptyTextDoc('logged out (an empty text body)') });
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

/**
 * The operations of one provider route: the kind's own, by method, when it declares the route (only
 * those methods: any other is refused, 405 or 404, and is no operation of it), each with the common
 * error answers (its own 4XX/5XX win); else `generic` for each of `methods`.
 */
function operations(p: ProviderRoutes, route: string, methods: readonly string[], generic: (method: string) => Operation): PathItem {
  const own = p.docs?.[route];
  const item: PathItem = {};
  if (!own) {
    for (const method of methods) item[method] = generic(method);
    return item;
  }
  for (const [method, doc] of Object.entries(own)) {
    item[method] = { summary: generic(method).summary, tags: [p.name], ...doc, responses: { ...COMMON_ERRORS, ...(doc.responses as object) } };
  }
  return item;
}

const ID = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

/** A provider's login, callback, logout and own routes. */
export function providerPaths(prefix: string, p: ProviderRoutes): Record<string, PathItem> {
  const base = `${prefix}/${p.name}`;
  const tags = [p.name];
  const step = (what: string) =>
    op(`${what} (${p.kind})`, { 200: json({ oneOf: [ref('User'), ref('MfaRequired')] }, 'the user, or a second step due'), 302: redirect, 303: redirect }, { tags });
  const logout = () => op('Logs out', { 200: emptyTextDoc('logged out') }, { tags });
  const paths: Record<string, PathItem> = {
    [`${base}/login`]: operations(p, 'login', ['get', 'post'], (m) => step(m === 'get' ? 'Starts or completes a login' : 'Completes a login with credentials')),
    [`${base}/logout`]: { get: logout(), post: logout() },
  };
  if (p.callback) {
    paths[`${base}/callback`] = operations(p, 'callback', ['get', 'post'], (m) => step(m === 'get' ? 'The provider comes back' : 'The provider comes back with a form post'));
  }
  for (const action of p.actions) {
    const any = action === '*';
    const own = () => op(`${p.kind}: ${any ? 'an item by id' : action}`, { 200: json({}, 'its answer'), 201: json({}, 'created'), 204: empty('done') }, { tags });
    const item = operations(p, action, ['get', 'post', 'delete'], own);
    // The `{id}` segment is a parameter of every operation of the path, whoever described it.
    if (any) for (const m of Object.keys(item)) item[m] = { parameters: [ID], ...item[m] };
    paths[any ? `${base}/{id}` : `${base}/${action}`] = item;
  }
  return paths;
}

/** The routes the options turn on: the key set, the session list, the second factor. */
export function featurePaths(prefix: string, f: { jwks: boolean; mfa: boolean }): Record<string, PathItem> {
  // The session list is managed by a full login only: never basic auth (full-login.ts).
  const session = { security: loginSecurity() };
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

/** The second step passed: the pending login's user (session cookies set) or the stepped-up session's, or a browser's redirect. */
const PASSED = { 200: json(ref('User'), 'the user'), 303: redirect };

/**
 * The second-factor routes (docs/mfa.md), each with what lib/mfa/routes.ts answers. Each takes a pending
 * login's cookie or the session of a full login, never basic auth (403 `full_login_required`); the two
 * that only a session may use say so as their security.
 */
function mfaPaths(prefix: string): Record<string, PathItem> {
  const session = { security: loginSecurity() };
  return {
    [`${prefix}/mfa`]: { get: op("A pending login's factors to answer with, or the session user's factors", { 200: json({ oneOf: [ref('MfaRequired'), ref('MfaFactors')] }, 'the second step due, or the factors') }) },
    [`${prefix}/mfa/totp/setup`]: {
      post: op('Starts a TOTP set-up: secret, otpauth URL, QR code', {
        200: json(ref('TotpSetup'), 'the new key, not active until confirmed'),
      }),
    },
    [`${prefix}/mfa/totp/confirm`]: {
      post: op('Turns TOTP on with a first code; answers the recovery codes', {
        200: json(ref('TotpConfirmed'), 'the recovery codes; with the user when it finished an enrolling login'),
      }),
    },
    [`${prefix}/mfa/totp`]: { delete: op('Turns TOTP off', { 200: json(ref('MfaFactors'), 'the factors left') }, session) },
    [`${prefix}/mfa/recovery-codes`]: {
      post: op('New recovery codes', { 200: json(ref('RecoveryCodes'), 'the codes, replacing the old ones') }, session),
    },
    [`${prefix}/mfa/verify`]: { post: op('The second step, or a step-up, with a code', PASSED) },
    // The passkey kind is the one provider that is a second factor (SecondFactor): its request options.
    [`${prefix}/mfa/passkey/options`]: { post: op('A passkey challenge for the second step', { 200: json(ref('PasskeyRequestOptions'), "the options for the user's passkeys, for navigator.credentials.get()") }) },
    [`${prefix}/mfa/passkey`]: { post: op('The second step with a passkey', PASSED) },
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
