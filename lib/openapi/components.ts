import { ERROR_CODES } from '../errors.js';
import { SESSION_SECURITY } from '../providers/core/route-docs.js';
import { PASSKEY_SCHEMAS } from './feature-schemas.js';

/**
 * The parts of the OpenAPI document every configuration shares: the error body with every error code,
 * the user, the answers of the core routes, and the ways a request carries its session.
 */

/** A JSON Schema (OpenAPI 3.1's dialect, JSON Schema 2020-12) or a reference to one. */
export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const string = { type: 'string' };

export const SCHEMAS: Record<string, Schema> = {
  Error: {
    type: 'object',
    description: 'Every error authkoa answers: a message for people and a code for programs.',
    required: ['error', 'code'],
    additionalProperties: false,
    properties: { error: string, code: { title: 'ErrorCode', type: 'string', enum: [...ERROR_CODES] } },
  },
  User: {
    type: 'object',
    description: 'The user of a session: what /auth/user and every login answer (lib/user.ts).',
    required: ['name', 'id', 'picture'],
    additionalProperties: false,
    properties: {
      name: string,
      id: { type: 'string', description: '`<provider>_<sha1 hex>` for most providers' },
      picture: { type: 'string', description: 'the proxied avatar URL, or ""' },
      aud: string,
      ip: string,
      email: string,
      role: string,
      attrs: { type: 'object' },
    },
  },
  // Core, not the second factor's: every login route answers it (their documents refer to it with or without `mfa`).
  MfaRequired: {
    type: 'object',
    description: 'A first factor passed and a second step is due (docs/mfa.md): not an error.',
    required: ['mfa_required', 'factors'],
    additionalProperties: false,
    properties: {
      mfa_required: { const: true },
      enroll_required: { type: 'boolean' },
      factors: { type: 'array', items: { enum: ['totp', 'recovery', 'passkey'] } },
    },
  },
  ProviderList: {
    oneOf: [
      { type: 'array', items: string },
      {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'kind'],
          additionalProperties: false,
          properties: { name: string, kind: string },
        },
      },
    ],
  },
  Status: {
    type: 'object',
    required: ['status'],
    additionalProperties: false,
    properties: { status: { enum: ['logged in', 'not logged in'] }, user: string },
  },
  KeySet: {
    type: 'object',
    description: 'The public keys session tokens are signed with (RFC 7517), the current one first.',
    required: ['keys'],
    properties: { keys: { type: 'array', items: ref('PublicJwk') } },
  },
  PublicJwk: {
    type: 'object',
    description: "One public key as a JWK: its type's own members (`crv` and `x`, `y` or `n` and `e`) beside these.",
    required: ['kty', 'kid', 'alg', 'use'],
    properties: {
      kty: { enum: ['OKP', 'EC', 'RSA'] },
      kid: { type: 'string', description: 'the RFC 7638 thumbprint of the key, as the tokens name it in their header' },
      alg: { enum: ['EdDSA', 'ES256', 'RS256'] },
      use: { const: 'sig' },
      crv: string,
      x: string,
      y: string,
      n: string,
      e: string,
    },
  },
  Session: {
    type: 'object',
    required: ['sid', 'current', 'provider', 'device', 'created', 'lastSeen'],
    additionalProperties: false,
    description: "One of the user's sessions (one per login, per browser), as the sessions list shows it.",
    properties: {
      sid: { type: 'string', description: "the session id (the token's `sid`), what ending one takes" },
      current: { type: 'boolean', description: 'the session of the browser making the request' },
      provider: { type: 'string', description: 'the provider the session logged in with' },
      device: {
        type: 'string',
        description:
          'a short label of the browser and system at the last refresh: "Chrome on macOS", "curl", "Unknown device"',
      },
      created: { type: 'string', format: 'date-time', description: 'when the session began (ISO 8601)' },
      lastSeen: { type: 'string', format: 'date-time', description: 'when it was last refreshed (ISO 8601)' },
    },
  },
  ...PASSKEY_SCHEMAS,
};

/** The names the security schemes read, and which of them the options turn on. */
interface SchemeNames {
  jwtCookieName: string;
  xsrfHeaderName: string;
  jwtHeaderName: string;
  jwtQueryName: string;
  basic: boolean;
}

/**
 * How a request carries its session: the cookie with its XSRF header (both), the header, the query,
 * basic auth. A feature adds its own (the second factor: the cookie of a login whose second step is due).
 */
export function securitySchemes(o: SchemeNames): Record<string, Schema> {
  const cookie = (name: string, description: string) => ({ type: 'apiKey', in: 'cookie', name, description });
  const header = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });
  return {
    jwtCookie: cookie(o.jwtCookieName, 'the session cookie; needs the XSRF header beside it'),
    xsrfHeader: header(o.xsrfHeaderName, 'the value of the XSRF-TOKEN cookie, echoed'),
    jwtHeader: { type: 'apiKey', in: 'header', name: o.jwtHeaderName },
    jwtQuery: { type: 'apiKey', in: 'query', name: o.jwtQueryName },
    ...(o.basic ? { basicAuth: { type: 'http', scheme: 'basic' } } : {}),
  };
}

/** A security requirement list: any one of its entries. */
export type Security = Array<Record<string, readonly string[]>>;

/**
 * The security of a route that reads the user as the `auth` middleware does: any session transport, or
 * basic auth where it is configured. Routes that manage factors, sessions or credentials take
 * SESSION_SECURITY instead (never basic auth).
 */
export function userSecurity(basic: boolean, credentials: readonly string[] = []): Security {
  return [...SESSION_SECURITY, ...(basic ? [{ basicAuth: [] }] : []), ...credentials.map((name) => ({ [name]: [] }))];
}
