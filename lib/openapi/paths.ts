import { emptyTextDoc } from '../providers/core/route-docs.js';
import { ref, userSecurity } from './components.js';
import { COMMON_ERRORS, empty, json, op, PUBLIC, redirect, SESSION_IF_ANY, STRING } from './operation.js';
import type { Operation, PathItem, Text } from './operation.js';

/**
 * The routes a configuration serves, as OpenAPI path items. Core routes are written here once; a
 * provider's come from what it is (its callback, its own actions); the features describe their own
 * (Feature.openapi). Paths carry the configured prefixes (`authRoutePath`, `avatarRoutePath`).
 */

/** A logout: the same wherever it is mounted. */
const LOGOUT: Text = [
  'Ends the session of this browser (cookies cleared) and its token',
  'Clears both session cookies and ends the session the request carries, if any (its token is refused from then ' +
    'on). Answers 200 with an empty body whether or not there was one.',
];

const CORE = {
  list: ['The configured providers', 'Their names; with `details=1`, each with its kind. What a login page reads.'],
  user: [
    "The request's user",
    'The user of the session the request carries (cookie with its XSRF header, X-JWT, `?token=`, or basic auth ' +
      'where configured); 401 without one.',
  ],
  status: ['Whether the request is logged in', "`logged in` with the user's name, or `not logged in`."],
} satisfies Record<string, Text>;

/** The routes every configuration has. */
export function corePaths(
  prefix: string,
  basic: boolean,
  credentials: readonly string[] = [],
): Record<string, PathItem> {
  const tag = 'auth';
  const loggedOut = { 200: emptyTextDoc('logged out (an empty text body)') };
  const logout = () => op(LOGOUT, tag, SESSION_IF_ANY, loggedOut);
  const listed = { 200: json(ref('ProviderList'), 'names, or `{name, kind}` with `details=1`') };
  const details = { parameters: [{ name: 'details', in: 'query', schema: { enum: ['1', 'true'] } }] };
  const user = { 200: json(ref('User'), 'the user') };
  const status = { 200: json(ref('Status'), 'the status') };
  return {
    [`${prefix}/list`]: { get: op(CORE.list, tag, PUBLIC, listed, details) },
    [`${prefix}/user`]: { get: op(CORE.user, tag, userSecurity(basic, credentials), user) },
    [`${prefix}/status`]: { get: op(CORE.status, tag, [{}, ...userSecurity(basic, credentials)], status) },
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
    const { summary, description } = generic(method);
    item[method] = { summary, description, tags: [p.name], security: PUBLIC, ...doc, responses };
  }
  return item;
}

const ID = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

/** A login's steps, as a kind that does not describe its routes has them. */
const STEPS = {
  get: [
    'Starts or completes a login',
    'Starts the login (a redirect to the provider), or completes it where the kind reads credentials from the query: ' +
      'the user (session cookies set), or a second step due.',
  ],
  post: [
    'Completes a login with credentials',
    'The credentials in the body: the user (session cookies set), or a second step due.',
  ],
  back: [
    'The provider comes back',
    'Where the provider sends the browser back: the session is set and the browser sent on to where the login began.',
  ],
  form: ['The provider comes back with a form', 'As GET, for a provider that posts its answer back (form_post).'],
} satisfies Record<string, Text>;

/** A provider's login, callback, logout and own routes. */
export function providerPaths(
  prefix: string,
  p: ProviderRoutes,
  /** What the features answer at every login and callback (FeatureOpenAPI.loginAnswers). */
  loginAnswers: Record<string, Record<string, unknown>> = {},
): Record<string, PathItem> {
  const base = `${prefix}/${p.name}`;
  const tag = p.name;
  const user = json({ oneOf: [ref('User'), ref('MfaRequired')] }, 'the user, or a second step due');
  const passed = { 200: user, 302: redirect, 303: redirect, ...loginAnswers };
  const step = ([what, how]: Text) => op([`${what} (${p.kind})`, how], tag, PUBLIC, passed);
  const logout = () => op(LOGOUT, tag, SESSION_IF_ANY, { 200: emptyTextDoc('logged out') });
  const login = (m: string) => step(m === 'get' ? STEPS.get : STEPS.post);
  const paths: Record<string, PathItem> = {
    [`${base}/login`]: operations(p, 'login', ['get', 'post'], login),
    [`${base}/logout`]: { get: logout(), post: logout() },
  };
  if (p.callback) {
    const back = (m: string) => step(m === 'get' ? STEPS.back : STEPS.form);
    paths[`${base}/callback`] = operations(p, 'callback', ['get', 'post'], back);
  }
  const answers = { 200: json({}, 'its answer'), 201: json({}, 'created'), 204: empty('done') };
  for (const action of p.actions) {
    const any = action === '*';
    const what = `${p.kind}: ${any ? 'an item by id' : action}`;
    const own = () => op([what, `A route of the ${p.kind} kind, which describes it no further.`], tag, PUBLIC, answers);
    const item = operations(p, action, ['get', 'post', 'delete'], own);
    // The `{id}` segment is a parameter of every operation of the path, whoever described it.
    if (any) for (const m of Object.keys(item)) item[m] = { parameters: [ID], ...item[m] };
    paths[any ? `${base}/{id}` : `${base}/${action}`] = item;
  }
  return paths;
}

/** The avatar route. */
export function avatarPaths(avatarPrefix: string): Record<string, PathItem> {
  const bytes = { ...STRING, contentMediaType: 'image/*' };
  const image = { description: 'the image', content: { 'image/*': { schema: bytes } } };
  const id = { name: 'id', in: 'path', required: true, schema: { ...STRING, pattern: '^[0-9a-fA-F]{40}\\.image$' } };
  const found = { 200: image, 304: empty('not modified (ETag)') };
  const text: Text = ['A stored avatar', "A user's avatar by the id their `picture` links to, with its ETag."];
  return { [`${avatarPrefix}/{id}`]: { get: op(text, 'avatar', PUBLIC, found, { parameters: [id] }) } };
}
