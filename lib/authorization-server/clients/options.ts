import { parseDuration, type Duration } from '../../util/duration.js';
import { unknownOption } from '../../util/options.js';
import { redirectURIProblem } from './redirect-uris.js';
import type {
  ClientConfig,
  ClientOptions,
  GrantType,
  OAuthClient,
  RegistrationLimitOptions,
  RegistrationLimits,
  RegistrationMode,
} from './types.js';

/**
 * The clients' part of the `authorizationServer` option, checked once at start-up: a TypeError naming the option
 * (`authKoa: authorizationServer.clients[1].redirectURIs: …`). Only the members named here are read; the rest of
 * the object belongs to the other parts of the authorization server, which check their own.
 */

const CLIENT_FIELDS = ['id', 'secret', 'name', 'redirectURIs', 'grantTypes', 'scopes', 'resources', 'trusted'];
const LIMIT_FIELDS = ['perAddress', 'window', 'maxClients', 'lifetime'];
const GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token', 'client_credentials'];
/** A metadata document's fetch: the webhook sender's kind of limit. */
const DEFAULT_DOCUMENT_TIMEOUT = '5s';
const MAX_CLIENTS = 10_000;

/** The members of the `authorizationServer` option this module reads. */
export const CLIENT_OPTION_KEYS = [
  'clients',
  'clientMetadataDocuments',
  'registration',
  'registrationLimits',
  'allowPrivate',
  'allowHttpRedirects',
];

/** Reads and checks `clients`, `clientMetadataDocuments`, `registration`, `allowPrivate`, `allowHttpRedirects`. */
export function readClientOptions(input: unknown, path = 'authorizationServer'): ClientConfig {
  if (input === undefined || input === true) input = {};
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError(`authKoa: ${path} must be an object`);
  const o = input as Record<string, unknown>;
  const allowPrivate = flag(o.allowPrivate, `${path}.allowPrivate`);
  const allowHttpRedirects = flag(o.allowHttpRedirects, `${path}.allowHttpRedirects`);
  return {
    clients: readClients(o.clients, `${path}.clients`, allowHttpRedirects),
    metadataDocuments: readDocuments(o.clientMetadataDocuments, `${path}.clientMetadataDocuments`),
    registration: readRegistration(o.registration, `${path}.registration`),
    registrationLimits: readLimits(o.registrationLimits, `${path}.registrationLimits`),
    allowPrivate,
    allowHttpRedirects,
  };
}

function flag(value: unknown, at: string): boolean {
  if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`authKoa: ${at} must be a boolean`);
  return value === true;
}

function readClients(value: unknown, at: string, allowHttp: boolean): ClientConfig['clients'] {
  if (value === undefined) return new Map();
  if (!Array.isArray(value)) throw new TypeError(`authKoa: ${at} must be an array of { id, secret?, redirectURIs }`);
  const clients = new Map<string, { client: OAuthClient; secret?: string }>();
  value.forEach((entry, i) => {
    const read = readClient(entry, `${at}[${i}]`, allowHttp);
    if (clients.has(read.client.id))
      throw new TypeError(`authKoa: ${at}[${i}].id ${JSON.stringify(read.client.id)} is listed twice`);
    clients.set(read.client.id, read);
  });
  return clients;
}

function readClient(value: unknown, at: string, allowHttp: boolean): { client: OAuthClient; secret?: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError(`authKoa: ${at} must be an object { id, secret?, redirectURIs }`);
  for (const key of Object.keys(value))
    if (!CLIENT_FIELDS.includes(key)) throw new TypeError(`authKoa: ${at}: ${unknownOption(key, CLIENT_FIELDS)}`);
  const c = value as Partial<ClientOptions>;
  // An id travels in URLs and state keys: text without control characters, of a bounded length.
  if (typeof c.id !== 'string' || c.id === '' || c.id.length > 512 || /[\p{Cc}\s]/u.test(c.id))
    throw new TypeError(`authKoa: ${at}.id must be a non-empty string without spaces (at most 512 characters)`);
  if (c.secret !== undefined && (typeof c.secret !== 'string' || c.secret === ''))
    throw new TypeError(`authKoa: ${at}.secret must be a non-empty string`);
  if (c.name !== undefined && typeof c.name !== 'string') throw new TypeError(`authKoa: ${at}.name must be a string`);
  const grantTypes = readGrants(c.grantTypes, c.secret !== undefined, `${at}.grantTypes`);
  const redirectURIs = readRedirects(c.redirectURIs, grantTypes.includes('authorization_code'), at, allowHttp);
  const client: OAuthClient = {
    id: c.id,
    ...(c.name !== undefined && { name: c.name }),
    redirectURIs,
    grantTypes,
    ...(c.scopes !== undefined && { scopes: readScopes(c.scopes, `${at}.scopes`) }),
    ...(c.resources !== undefined && { resources: readResources(c.resources, `${at}.resources`) }),
    trusted: flag(c.trusted, `${at}.trusted`),
    confidential: c.secret !== undefined,
    source: 'options',
  };
  return { client, ...(c.secret !== undefined && { secret: c.secret }) };
}

function readGrants(value: unknown, hasSecret: boolean, at: string): GrantType[] {
  if (value === undefined) return ['authorization_code', 'refresh_token'];
  if (!Array.isArray(value) || value.length === 0 || !value.every((g) => GRANT_TYPES.includes(g as GrantType)))
    throw new TypeError(`authKoa: ${at} must be a non-empty array of ${GRANT_TYPES.join(', ')}`);
  if (value.includes('client_credentials') && !hasSecret)
    throw new TypeError(`authKoa: ${at}: client_credentials needs a secret (the client's own credentials)`);
  return [...new Set(value as GrantType[])];
}

function readRedirects(value: unknown, needed: boolean, at: string, allowHttp: boolean): string[] {
  if (value === undefined && !needed) return [];
  if (!Array.isArray(value) || (needed && value.length === 0))
    throw new TypeError(`authKoa: ${at}.redirectURIs must list at least one URI (the authorization_code grant)`);
  for (const uri of value as unknown[]) {
    const problem = redirectURIProblem(uri, 'any', allowHttp);
    if (problem === undefined) continue;
    const hint = problem.startsWith('is plain http') ? ' (allowHttpRedirects: true allows it, for development)' : '';
    throw new TypeError(`authKoa: ${at}.redirectURIs: ${JSON.stringify(uri)} ${problem}${hint}`);
  }
  return [...(value as string[])];
}

function readScopes(value: unknown, at: string): string[] {
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)))
    throw new TypeError(`authKoa: ${at} must be an array of scope names (no spaces)`);
  return [...(value as string[])];
}

/** Resource indicators (RFC 8707 §2): absolute URIs without a fragment. */
function readResources(value: unknown, at: string): string[] {
  const absolute = (r: unknown) => {
    try {
      return typeof r === 'string' && !r.includes('#') && new URL(r).protocol !== '';
    } catch {
      return false;
    }
  };
  if (!Array.isArray(value) || !value.every(absolute))
    throw new TypeError(`authKoa: ${at} must be an array of absolute URIs without a fragment`);
  return [...(value as string[])];
}

function readDocuments(value: unknown, at: string): ClientConfig['metadataDocuments'] {
  if (value === false) return false;
  if (value === undefined || value === true) return { timeoutMs: parseDuration(DEFAULT_DOCUMENT_TIMEOUT, at) };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError(`authKoa: ${at} must be true, false or { timeout }`);
  for (const key of Object.keys(value))
    if (key !== 'timeout') throw new TypeError(`authKoa: ${at}: ${unknownOption(key, ['timeout'])}`);
  const timeout = (value as { timeout?: Duration }).timeout ?? DEFAULT_DOCUMENT_TIMEOUT;
  return { timeoutMs: parseDuration(timeout, `authKoa: ${at}.timeout`) };
}

function readRegistration(value: unknown, at: string): false | RegistrationMode {
  if (value === undefined || value === false) return false;
  if (value === 'open') return { open: true };
  const shape = `authKoa: ${at} must be 'open' or { initialAccessToken: '<at least 16 characters>' }`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(shape);
  for (const key of Object.keys(value))
    if (key !== 'initialAccessToken')
      throw new TypeError(`authKoa: ${at}: ${unknownOption(key, ['initialAccessToken'])}`);
  // A token read from an unset variable must not open registration to anyone: no default, no short token.
  const token = (value as { initialAccessToken?: unknown }).initialAccessToken;
  if (typeof token !== 'string' || token.length < 16) throw new TypeError(`${shape} (initialAccessToken)`);
  return { open: false, initialAccessToken: token };
}

function readLimits(value: unknown, at: string): RegistrationLimits {
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value)))
    throw new TypeError(`authKoa: ${at} must be an object { perAddress?, window?, maxClients?, lifetime? }`);
  const o = (value ?? {}) as RegistrationLimitOptions;
  for (const key of Object.keys(o))
    if (!LIMIT_FIELDS.includes(key)) throw new TypeError(`authKoa: ${at}: ${unknownOption(key, LIMIT_FIELDS)}`);
  const count = (n: unknown, fallback: number, max: number, name: string) => {
    if (n === undefined) return fallback;
    if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > max)
      throw new TypeError(`authKoa: ${at}.${name} must be an integer from 1 to ${max}`);
    return n as number;
  };
  return {
    perAddress: count(o.perAddress, 10, 1_000_000, 'perAddress'),
    windowMs: Math.round(parseDuration(o.window ?? '1h', `authKoa: ${at}.window`)),
    // The index of registered clients is one state entry, read and written whole: it stays small.
    maxClients: count(o.maxClients, 1000, MAX_CLIENTS, 'maxClients'),
    lifetimeMs: parseDuration(o.lifetime ?? '365d', `authKoa: ${at}.lifetime`),
  };
}
