import type { VerifyKey } from '../session/jws.js';
import { parseDuration, type Duration } from '../util/duration.js';
import { checkEvents, type EventsConfig, type VerifierEventsOptions, type VerifierLogger } from './events.js';
import { jwksOf, type JwksOption } from './key-set.js';

/** The options of protectedResource() (docs/verify.md#protecting-an-api-with-access-tokens), checked. */

/** Revocations from the app, as verifier() takes them; `issuer` is the SETs' `iss`. */
export interface ProtectedResourceEventsOptions extends VerifierEventsOptions {
  /**
   * The app's `issuer` option, which its Security Event Tokens carry as `iss`. Default: any of
   * `authorizationServers`, or `authkoa` (that option's default).
   */
  issuer?: string;
}

/** Options of protectedResource(). */
export interface ProtectedResourceOptions {
  /** This API's resource identifier (RFC 8707): the `aud` of its tokens, e.g. `https://api.example/mcp`. */
  resource: string | URL;
  /** The issuers whose access tokens it takes (`iss`), each exactly as its metadata's `issuer`. */
  authorizationServers: ReadonlyArray<string | URL>;
  /** The scopes it names in its metadata (`scopes_supported`); `.scope()` then takes only these. */
  scopes?: readonly string[];
  /** Its human-readable name in the metadata (`resource_name`). */
  resourceName?: string;
  /** The servers' key set (its URL, or a JWK set held locally), instead of finding it through their metadata. */
  jwks?: JwksOption;
  /** How long a fetched metadata document and key set are used before they are fetched again. Default 10 minutes. */
  maxAge?: Duration;
  /** A token naming an unknown key, or a server whose metadata failed, is fetched at most this often. Default 30 s. */
  cooldown?: Duration;
  /** The deadline of one fetch. Default 5 seconds. */
  timeout?: Duration;
  /** Clock in ms; tests inject one. Default Date.now. */
  clock?: () => number;
  /** Revocations from the app (its `ssf` option), as verifier()'s `events`. Off by default. */
  events?: ProtectedResourceEventsOptions;
  /** Where warnings go (the app's events unreachable). Default: `console.error`. */
  logger?: VerifierLogger;
}

/** The options checked, defaults filled in. */
export interface ResourceConfig {
  /** The identifier as given (the metadata's `resource`). */
  resource: string;
  /** The `aud` values taken as this resource: the identifier as given and as its URL's href. */
  audiences: ReadonlySet<string>;
  /** The path of the metadata document, and its absolute URL. */
  metadataPath: string;
  metadataUrl: string;
  issuers: string[];
  scopes: string[] | undefined;
  resourceName: string | undefined;
  jwks: string | Map<string, VerifyKey> | undefined;
  maxAgeMs: number;
  cooldownMs: number;
  timeoutMs: number;
  clock: () => number;
  events: EventsConfig | undefined;
  /** The `iss` of the SETs taken. */
  eventIssuers: string[];
  logger: VerifierLogger;
}

const NAME = 'protectedResource';
const OPTION_NAMES = [
  'resource',
  'authorizationServers',
  'scopes',
  'resourceName',
  'jwks',
  'maxAge',
  'cooldown',
  'timeout',
  'clock',
  'events',
  'logger',
];
/** A scope token (RFC 6749 §3.3): printable ASCII but space, `"` and `\`, so it goes in a quoted header value. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export function checkResourceOptions(opts: ProtectedResourceOptions): ResourceConfig {
  if (!opts || typeof opts !== 'object' || Array.isArray(opts))
    throw new TypeError(`${NAME}() requires an options object: { resource, authorizationServers }`);
  for (const k of Object.keys(opts))
    if (!OPTION_NAMES.includes(k))
      throw new TypeError(`${NAME}: unknown option "${k}" (known: ${OPTION_NAMES.join(', ')})`);
  const resource = urlOption(opts.resource, 'resource');
  const servers = opts.authorizationServers as unknown;
  if (!Array.isArray(servers) || servers.length === 0)
    throw new TypeError(`${NAME}: authorizationServers must be a list of issuer URLs (at least one)`);
  const issuers = [...new Set(servers.map((s) => urlOption(s, 'authorizationServers[]')))];
  const { scopes, resourceName, clock, logger } = opts;
  if (
    scopes !== undefined &&
    (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s)))
  )
    throw new TypeError(`${NAME}: scopes must be a list of scope names (printable ASCII, no space, " or \\)`);
  if (resourceName !== undefined && (typeof resourceName !== 'string' || resourceName.trim() === ''))
    throw new TypeError(`${NAME}: resourceName must be a non-empty string`);
  if (clock !== undefined && typeof clock !== 'function')
    throw new TypeError(`${NAME}: clock must be a function returning the time in ms`);
  if (logger !== undefined && typeof logger?.warn !== 'function')
    throw new TypeError(`${NAME}: logger must have a warn(message) method`);
  const url = new URL(resource);
  const metadataPath = `/.well-known/oauth-protected-resource${url.pathname === '/' ? '' : url.pathname}`;
  const { events, eventIssuers } = eventsOption(opts.events, resource, issuers);
  return {
    resource,
    audiences: new Set([resource, url.href]),
    metadataPath,
    metadataUrl: url.origin + metadataPath,
    issuers,
    scopes: scopes && [...new Set(scopes)],
    resourceName,
    jwks: opts.jwks === undefined ? undefined : jwksOf(opts.jwks, NAME),
    maxAgeMs: parseDuration(opts.maxAge ?? '10m', `${NAME}: maxAge`),
    cooldownMs: parseDuration(opts.cooldown ?? '30s', `${NAME}: cooldown`),
    timeoutMs: parseDuration(opts.timeout ?? '5s', `${NAME}: timeout`),
    clock: clock ?? Date.now,
    events,
    eventIssuers,
    logger: logger ?? { warn: (m) => console.error(m) },
  };
}

/**
 * An http(s) URL with no query or fragment (a resource identifier, RFC 8707 §2; an issuer, RFC 8414 §2), kept as
 * given: it is compared with the claims as a string.
 */
function urlOption(value: unknown, name: string): string {
  const text = value instanceof URL ? value.href : value;
  const url = typeof text === 'string' && URL.canParse(text) ? new URL(text) : undefined;
  if ((url?.protocol !== 'https:' && url?.protocol !== 'http:') || url.search !== '' || url.hash !== '')
    throw new TypeError(
      `${NAME}: ${name} must be an http(s) URL with no query or fragment (got ${JSON.stringify(String(value))})`,
    );
  return text as string;
}

/** `events` checked as verifier()'s (its receiver id defaulting to the resource), and the SETs' issuers. */
function eventsOption(
  input: ProtectedResourceEventsOptions | undefined,
  resource: string,
  issuers: string[],
): { events: EventsConfig | undefined; eventIssuers: string[] } {
  if (input === undefined) return { events: undefined, eventIssuers: [] };
  const { issuer, ...rest } = (input && typeof input === 'object' ? input : {}) as ProtectedResourceEventsOptions;
  if (issuer !== undefined && (typeof issuer !== 'string' || issuer === ''))
    throw new TypeError(`${NAME}: events.issuer must be the app's issuer option (a non-empty string)`);
  const events = checkEvents(input && typeof input === 'object' ? rest : input, [resource], NAME);
  // The app signs its SETs with its `issuer` option: its URL when it sets it so, or the default, `authkoa`.
  return { events, eventIssuers: issuer !== undefined ? [issuer] : [...issuers, 'authkoa'] };
}
