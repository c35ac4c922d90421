import { emptyTextDoc, redirectDoc, SESSION_SECURITY } from '../providers/core/route-docs.js';
import { ref, userSecurity, type Schema, type Security } from './components.js';

/**
 * The routes a configuration serves, as OpenAPI path items. Core routes are written here once; a
 * provider's come from what it is (its callback, its own actions), the features' from the options that
 * turn them on. Paths carry the configured prefixes (`authRoutePath`, `avatarRoutePath`). Every
 * operation says its security: `[]` for a public route, the ways a session is carried for one that needs
 * it, with `{}` among them where a session is read but not needed.
 */

type Operation = Record<string, unknown>;
export type PathItem = Record<string, Operation>;

const json = (schema: Schema, description: string) => ({ description, content: { 'application/json': { schema } } });
const error = (description: string) => json(ref('Error'), description);
const redirect = redirectDoc('a redirect (Location)');
const empty = (description: string) => ({ description });
const STRING = { type: 'string' };

/** The error answers any route may give, beside its own. */
const COMMON_ERRORS = {
  '4XX': error('refused: the body says why (`code`)'),
  '5XX': error('a backend is away or failed (`code`)'),
};

const PUBLIC: Security = [];
const SESSION: Security = [...SESSION_SECURITY];
/** A session is read when there is one (a logout ends it), but none is needed. */
const SESSION_IF_ANY: Security = [{}, ...SESSION];
/** A login whose second step is pending (its own cookie), or a session: whom the second-factor routes act for. */
const PENDING_OR_SESSION: Security = [{ mfaPending: [] }, ...SESSION];

type Responses = Record<string, unknown>;

function op(summary: string, tag: string, security: Security, responses: Responses, more: Operation = {}): Operation {
  return { summary, tags: [tag], security, ...more, responses: { ...responses, ...COMMON_ERRORS } };
}

/** The routes every configuration has. */
export function corePaths(prefix: string, basic: boolean): Record<string, PathItem> {
  const tag = 'auth';
  const loggedOut = { 200: emptyTextDoc('logged out (an empty text body)') };
  const ends = 'Ends the session of this browser (cookies cleared) and its token';
  const logout = () => op(ends, tag, SESSION_IF_ANY, loggedOut);
  const listed = { 200: json(ref('ProviderList'), 'names, or `{name, kind}` with `details=1`') };
  const details = { parameters: [{ name: 'details', in: 'query', schema: { enum: ['1', 'true'] } }] };
  const user = { 200: json(ref('User'), 'the user') };
  const status = { 200: json(ref('Status'), 'the status') };
  return {
    [`${prefix}/list`]: { get: op('The configured providers', tag, PUBLIC, listed, details) },
    [`${prefix}/user`]: { get: op("The request's user", tag, userSecurity(basic), user) },
    [`${prefix}/status`]: { get: op('Whether the request is logged in', tag, [{}, ...userSecurity(basic)], status) },
    [`${prefix}/logout`]: { get: logout(), post: logout() },
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

type Generic = (method: string) => Operation;

/**
 * The operations of one provider route: the kind's own, by method, when it declares the route (only
 * those methods: any other is refused, 405 or 404, and is no operation of it), each with the common
 * error answers (its own 4XX/5XX win) and public unless it says its `security`; else `generic` for
 * each of `methods`.
 */
function operations(p: ProviderRoutes, route: string, methods: readonly string[], generic: Generic): PathItem {
  const own = p.docs?.[route];
  const item: PathItem = {};
  if (!own) {
    for (const method of methods) item[method] = generic(method);
    return item;
  }
  for (const [method, doc] of Object.entries(own)) {
    const responses = { ...COMMON_ERRORS, ...(doc.responses as object) };
    item[method] = { summary: generic(method).summary, tags: [p.name], security: PUBLIC, ...doc, responses };
  }
  return item;
}

const ID = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

/** A provider's login, callback, logout and own routes. */
export function providerPaths(prefix: string, p: ProviderRoutes): Record<string, PathItem> {
  const base = `${prefix}/${p.name}`;
  const tag = p.name;
  const user = json({ oneOf: [ref('User'), ref('MfaRequired')] }, 'the user, or a second step due');
  const step = (what: string) => op(`${what} (${p.kind})`, tag, PUBLIC, { 200: user, 302: redirect, 303: redirect });
  const logout = () => op('Logs out', tag, SESSION_IF_ANY, { 200: emptyTextDoc('logged out') });
  const login = (m: string) => step(m === 'get' ? 'Starts or completes a login' : 'Completes a login with credentials');
  const paths: Record<string, PathItem> = {
    [`${base}/login`]: operations(p, 'login', ['get', 'post'], login),
    [`${base}/logout`]: { get: logout(), post: logout() },
  };
  if (p.callback) {
    const back = (m: string) => step(m === 'get' ? 'The provider comes back' : 'The provider comes back with a form');
    paths[`${base}/callback`] = operations(p, 'callback', ['get', 'post'], back);
  }
  const answers = { 200: json({}, 'its answer'), 201: json({}, 'created'), 204: empty('done') };
  for (const action of p.actions) {
    const any = action === '*';
    const own = () => op(`${p.kind}: ${any ? 'an item by id' : action}`, tag, PUBLIC, answers);
    const item = operations(p, action, ['get', 'post', 'delete'], own);
    // The `{id}` segment is a parameter of every operation of the path, whoever described it.
    if (any) for (const m of Object.keys(item)) item[m] = { parameters: [ID], ...item[m] };
    paths[any ? `${base}/{id}` : `${base}/${action}`] = item;
  }
  return paths;
}

/** The routes the options turn on: the key set, the session list, the second factor. */
export function featurePaths(prefix: string, f: { jwks: boolean; mfa: boolean }): Record<string, PathItem> {
  const tag = 'sessions';
  const list = { 200: json({ type: 'array', items: ref('Session') }, 'newest first') };
  const others = { const: 'others' };
  const ended = { type: 'object', required: ['ended', 'current'], properties: { ended: others, current: STRING } };
  const sid = { name: 'sid', in: 'path', required: true, schema: { type: 'string', maxLength: 128 } };
  const paths: Record<string, PathItem> = {
    [`${prefix}/sessions`]: { get: op("The user's sessions, one per login", tag, SESSION, list) },
    [`${prefix}/sessions/revoke-others`]: {
      post: op('Ends every other session of the user', tag, SESSION, { 200: json(ended, 'ended') }),
    },
    [`${prefix}/sessions/{sid}`]: {
      delete: op('Ends one session', tag, SESSION, { 204: empty('ended') }, { parameters: [sid] }),
    },
  };
  if (f.jwks) {
    const keys = { 200: json(ref('KeySet'), 'current key first') };
    const summary = 'The public keys session tokens are signed with';
    paths[`${prefix}/.well-known/jwks.json`] = { get: op(summary, 'keys', PUBLIC, keys) };
  }
  if (f.mfa) Object.assign(paths, mfaPaths(prefix));
  return paths;
}

/**
 * The second step passed: the pending login's user (session cookies set) or the stepped-up session's,
 * or a browser's redirect.
 */
const PASSED = { 200: json(ref('User'), 'the user'), 303: redirect };

/**
 * The second-factor routes (docs/mfa.md), each with what lib/mfa/routes.ts answers and whom it acts for
 * (lib/mfa/actor.ts): a pending login or a session; turning TOTP off and new recovery codes take a
 * (fresh) session only.
 */
function mfaPaths(prefix: string): Record<string, PathItem> {
  const mfa = (summary: string, security: Security, responses: Responses) => op(summary, 'mfa', security, responses);
  const page = { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } };
  const due = { 200: json({ oneOf: [ref('MfaRequired'), ref('MfaFactors')] }, 'the second step due, or the factors') };
  const setUp = { 200: json(ref('TotpSetup'), 'the new key, not active until confirmed') };
  const confirmed = { 200: json(ref('TotpConfirmed'), 'the recovery codes; the user too when it finished a login') };
  const left = { 200: json(ref('MfaFactors'), 'the factors left') };
  const codes = { 200: json(ref('RecoveryCodes'), 'the codes, replacing the old ones') };
  // The passkey kind is the one provider that is a second factor (SecondFactor): its request options.
  const forGet = "the options for the user's passkeys, for navigator.credentials.get()";
  const options = { 200: json(ref('PasskeyRequestOptions'), forGet) };
  const either = PENDING_OR_SESSION;
  return {
    [`${prefix}/mfa`]: { get: mfa("A pending login's factors, or the session user's factors", either, due) },
    [`${prefix}/mfa/totp/setup`]: { post: mfa('Starts a TOTP set-up: secret, otpauth URL, QR code', either, setUp) },
    [`${prefix}/mfa/totp/confirm`]: { post: mfa('Turns TOTP on with a first code', either, confirmed) },
    [`${prefix}/mfa/totp`]: { delete: mfa('Turns TOTP off', SESSION, left) },
    [`${prefix}/mfa/recovery-codes`]: { post: mfa('New recovery codes', SESSION, codes) },
    [`${prefix}/mfa/verify`]: { post: mfa('The second step, or a step-up, with a code', either, PASSED) },
    [`${prefix}/mfa/passkey/options`]: { post: mfa('A passkey challenge for the second step', either, options) },
    [`${prefix}/mfa/passkey`]: { post: mfa('The second step with a passkey', either, PASSED) },
    [`${prefix}/mfa/page`]: { get: mfa('The second-step page', [{}, { mfaPending: [] }], page) },
  };
}

/** The avatar route. */
export function avatarPaths(avatarPrefix: string): Record<string, PathItem> {
  const bytes = { ...STRING, contentMediaType: 'image/*' };
  const image = { description: 'the image', content: { 'image/*': { schema: bytes } } };
  const id = { name: 'id', in: 'path', required: true, schema: { ...STRING, pattern: '^[0-9a-fA-F]{40}\\.image$' } };
  const found = { 200: image, 304: empty('not modified (ETag)') };
  return { [`${avatarPrefix}/{id}`]: { get: op('A stored avatar', 'avatar', PUBLIC, found, { parameters: [id] }) } };
}
