/**
 * The component schemas of the second factor's answers (its feature's part of the OpenAPI document, and
 * `authkoa/client`'s generated types). `MfaRequired`, the answer of a login whose second step is due,
 * stays with the core schemas: every login route refers to it, with or without the `mfa` option.
 */
type Schema = Record<string, unknown>;

const string = { type: 'string' };
const user = { $ref: '#/components/schemas/User' };
const recoveryCodes = { type: 'array', items: string, description: 'shown once: each works once' };

/** A closed object whose members are all required. */
const closed = (properties: Record<string, Schema>, description?: string): Schema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required: Object.keys(properties),
  additionalProperties: false,
  properties,
});

export const MFA_SCHEMAS: Record<string, Schema> = {
  MfaFactors: closed(
    {
      totp: { type: 'boolean' },
      recoveryCodesLeft: { type: 'integer', minimum: 0 },
      passkeys: { type: 'integer', minimum: 0 },
    },
    "The session user's second factors: TOTP on or off, the recovery codes left, the passkeys they have.",
  ),
  TotpSetup: closed(
    {
      secret: { type: 'string', pattern: '^[A-Z2-7]+$', description: 'the key in base32, to type into an app by hand' },
      otpauthUrl: {
        type: 'string',
        pattern: '^otpauth://totp/',
        description: 'the `otpauth://totp/…` URI the QR code holds',
      },
      qr: {
        type: 'string',
        pattern: '^data:image/svg\\+xml;base64,',
        description: 'the QR code as a data URL, for an `<img src>`',
      },
    },
    'A new authenticator-app key, not on until confirmed with a code it shows.',
  ),
  TotpConfirmed: {
    type: 'object',
    description:
      'TOTP turned on: the recovery codes, and the user when it finished a login that had to enrol (the session ' +
      'is set).',
    required: ['recoveryCodes'],
    additionalProperties: false,
    properties: { recoveryCodes, user },
  },
  RecoveryCodes: closed({ recoveryCodes }, 'New recovery codes, replacing the old ones.'),
};
