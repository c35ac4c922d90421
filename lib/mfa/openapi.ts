import { ref, type Security } from '../openapi/components.js';
import { json, op, redirect, SESSION } from '../openapi/operation.js';
import type { PathItem, Responses, Text } from '../openapi/operation.js';
import type { FeatureOpenAPI } from '../features/contract.js';
import { partialCookieName } from './partial.js';
import { MFA_SCHEMAS } from './schemas.js';

/**
 * The second-factor routes (docs/mfa.md), each with what lib/mfa/routes.ts answers and whom it acts for
 * (lib/mfa/actor.ts): a pending login (its own cookie) or a session; turning TOTP off and new recovery
 * codes take a fresh session only.
 */

/** A login whose second step is pending (its own cookie), or a session: whom the second-factor routes act for. */
const PENDING_OR_SESSION: Security = [{ mfaPending: [] }, ...SESSION];

/** A fresh session: one whose login is recent enough (`mfa.fresh`); an older one is 401 `reauth_required`. */
const FRESH = 'a session whose login is recent (`mfa.fresh`; older: 401 `reauth_required`)';

const TEXT = {
  status: [
    "A pending login's factors, or the session user's factors",
    'With a pending login: the factors it may answer with (or that it must set one up). With a session: TOTP on ' +
      'or off, the recovery codes left, the passkeys.',
  ],
  setup: [
    'Starts a TOTP set-up: secret, otpauth URL, QR code',
    `A new authenticator-app key, not on until confirmed: for a login that must set up a factor, or ${FRESH}.`,
  ],
  confirm: [
    'Turns TOTP on with a first code',
    '`{code}` from the new key: TOTP is on and the recovery codes are answered, once; a login that had to set up ' +
      'a factor is finished too (session cookies set).',
  ],
  remove: ['Turns TOTP off', `TOTP off and its recovery codes gone, for ${FRESH}: answers the factors left.`],
  codes: ['New recovery codes', `Ten new recovery codes replacing the old ones, for ${FRESH}.`],
  verify: [
    'The second step, or a step-up, with a code',
    '`{code}` or `{recoveryCode}`: finishes the pending login (session cookies set), or re-confirms the session ' +
      "user (step-up). Wrong codes are counted per user with the passwords' limits.",
  ],
  passkeyOptions: ['A passkey challenge for the second step', "A WebAuthn challenge for the user's passkeys."],
  passkey: ['The second step with a passkey', 'The assertion answering the challenge: as `verify`, with a passkey.'],
  page: ['The second-step page', "The built-in page for this browser's pending login (or saying there is none)."],
  client: [
    "The second-step page's script",
    'The `authkoa/client` script-tag bundle (`window.authkoaClient`) the built-in page makes its requests with.',
  ],
} satisfies Record<string, Text>;

/**
 * The second step passed: the pending login's user (session cookies set) or the stepped-up session's,
 * or a browser's redirect.
 */
const PASSED = { 200: json(ref('User'), 'the user'), 303: redirect };

export function mfaPaths(prefix: string): Record<string, PathItem> {
  const mfa = (text: Text, security: Security, responses: Responses) => op(text, 'mfa', security, responses);
  const page = { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } };
  const script = {
    200: { description: 'JavaScript', content: { 'text/javascript': { schema: { type: 'string' } } } },
    304: { description: 'not modified (`If-None-Match`)' },
  };
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
    [`${prefix}/mfa`]: { get: mfa(TEXT.status, either, due) },
    [`${prefix}/mfa/totp/setup`]: { post: mfa(TEXT.setup, either, setUp) },
    [`${prefix}/mfa/totp/confirm`]: { post: mfa(TEXT.confirm, either, confirmed) },
    [`${prefix}/mfa/totp`]: { delete: mfa(TEXT.remove, SESSION, left) },
    [`${prefix}/mfa/recovery-codes`]: { post: mfa(TEXT.codes, SESSION, codes) },
    [`${prefix}/mfa/verify`]: { post: mfa(TEXT.verify, either, PASSED) },
    [`${prefix}/mfa/passkey/options`]: { post: mfa(TEXT.passkeyOptions, either, options) },
    [`${prefix}/mfa/passkey`]: { post: mfa(TEXT.passkey, either, PASSED) },
    [`${prefix}/mfa/page`]: { get: mfa(TEXT.page, [{}, { mfaPending: [] }], page) },
    [`${prefix}/mfa/client.js`]: { get: mfa(TEXT.client, [{}], script) },
  };
}

/** The feature's part of the document: its paths under authRoutePath, its bodies, the cookie of a pending login. */
export function mfaOpenAPI(jwtCookieName: string): FeatureOpenAPI {
  const pending = {
    type: 'apiKey',
    in: 'cookie',
    name: partialCookieName(jwtCookieName),
    description: 'a login whose second step is due',
  };
  return {
    paths: mfaPaths(''),
    schemas: MFA_SCHEMAS,
    securitySchemes: { mfaPending: pending },
    tags: { mfa: 'The second factor: TOTP, recovery codes, the second step of a login' },
  };
}
