import { ERROR_CODES } from '../errors.js';
import { MFA_SCHEMAS, PASSKEY_SCHEMAS } from './feature-schemas.js';

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
  MfaRequired: {
    type: 'object',
    description: 'A first factor passed and a second step is due (docs/mfa.md): not an error.',
    required: ['mfa_required', 'factors'],
    additionalProperties: false,
    properties: { mfa_required: { const: true }, enroll_required: { type: 'boolean' }, factors: { type: 'array', items: { enum: ['totp', 'recovery', 'passkey'] } } },
  },
  ProviderList: {
    oneOf: [
      { type: 'array', items: string },
      { type: 'array', items: { type: 'object', required: ['name', 'kind'], additionalProperties: false, properties: { name: string, kind: string } } },
    ],
  },
  Status: {
    type: 'object',
    required: ['status'],
    additionalProperties: false,
    properties: { status: { enum: ['logged in', 'not logged in'] }, user: string },
  },
  KeySet: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object', required: ['kty', 'kid'] } } } },
  Session: {
    type: 'object',
    required: ['sid', 'current', 'provider', 'device', 'created', 'lastSeen'],
    additionalProperties: false,
    description: "One of the user's sessions (one per login, per browser), as the sessions list shows it.",
    properties: {
      sid: { type: 'string', description: "the session id (the token's `sid`), what ending one takes" },
      current: { type: 'boolean', description: 'the session of the browser making the request' },
      provider: { type: 'string', description: 'the provider the session logged in with' },
      device: { type: 'string', description: 'a short label of the browser and system at the last refresh: "Chrome on macOS", "curl", "Unknown device"' },
      created: { type: 'string', format: 'date-time', description: 'when the session began (ISO 8601)' },
      lastSeen: { type: 'string', format: 'date-time', description: 'when it was last refreshed (ISO 8601)' },
    },
  },
  ...MFA_SCHEMAS,
  ...PASSKEY_SCHEMAS,
};

/** How a request carries its session: the cookie with its XSRF header (both), the header, the query, basic auth. */
export function securitySchemes(o: { jwtCookieName: string; xsrfHeaderName: string; jwtHeaderName: string; jwtQueryName: string }, basic: boolean): Record<string, Schema> {
  return {
    jwtCookie: { type: 'apiKey', in: 'cookie', name: o.jwtCookieName, description: 'the session cookie; needs the XSRF header beside it' },
    xsrfHeader: { type: 'apiKey', in: 'header', name: o.xsrfHeaderName, description: 'the value of the XSRF-TOKEN cookie, echoed' },
    jwtHeader: { type: 'apiKey', in: 'header', name: o.jwtHeaderName },
    jwtQuery: { type: 'apiKey', in: 'query', name: o.jwtQueryName },
    ...(basic ? { basicAuth: { type: 'http', scheme: 'basic' } } : {}),
  };
}

/** The security requirement of a route that needs a session: any one of the ways. */
export function sessionSecurity(basic: boolean): Array<Record<string, string[]>> {
  return [...loginSecurity(), ...(basic ? [{ basicAuth: [] }] : [])];
}

/**
 * The security requirement of a route that manages factors, sessions, passkeys or credentials: the token
 * of a full login by any of its ways, never basic auth (403 `full_login_required`, lib/session/full-login.ts).
 */
export function loginSecurity(): Array<Record<string, string[]>> {
  return [{ jwtCookie: [], xsrfHeader: [] }, { jwtHeader: [] }, { jwtQuery: [] }];
}
