/**
 * A passkey authenticator in software, for logins without a browser: one P-256 key, a counter that moves
 * forward at every use, and the JSON a browser's WebAuthn call hands the page (@simplewebauthn/browser's
 * shape), with `none` attestation, user presence and verification flagged. Its `create` and `get` make it
 * an `authkoa/client` WebAuthnDevice too.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

/** A value CBOR encodes (tiny-cbor's, through simplewebauthn's helpers). */
type CBOR = Parameters<typeof isoCBOR.encode>[0];

export class SoftAuthenticator {
  readonly #keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  readonly id = randomBytes(16).toString('base64url');
  #counter = 0;
  #userHandle = '';

  constructor(
    private readonly origin: string,
    private readonly rpID: string,
  ) {}

  /** The answer to registration options: the credential's public key (COSE) in the attested data. */
  register(options: { challenge: string; user: { id: string } }) {
    this.#userHandle = options.user.id;
    const jwk = this.#keys.publicKey.export({ format: 'jwk' });
    const coordinate = (v: string | undefined) => new Uint8Array(Buffer.from(v!, 'base64url'));
    const cose = isoCBOR.encode(
      new Map<number, CBOR>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, coordinate(jwk.x)],
        [-3, coordinate(jwk.y)],
      ]),
    );
    const id = Buffer.from(this.id, 'base64url');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    // Flags UP | UV | AT; an all-zero AAGUID, as a `none` attestation gives.
    const authData = Buffer.concat([this.#authData(0x45), Buffer.alloc(16), length, id, cose]);
    const attestationObject = isoCBOR.encode(
      new Map<string, CBOR>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    return this.#credential({
      clientDataJSON: this.#clientData('webauthn.create', options.challenge),
      attestationObject: Buffer.from(attestationObject).toString('base64url'),
      transports: ['internal'],
    });
  }

  /** The answer to authentication options: authenticator data and client data signed with the key. */
  assert(options: { challenge: string }) {
    const authenticatorData = this.#authData(0x05);
    const clientDataJSON = this.#clientData('webauthn.get', options.challenge);
    const signature = sign(
      'sha256',
      Buffer.concat([authenticatorData, sha256(Buffer.from(clientDataJSON, 'base64url'))]),
      this.#keys.privateKey,
    );
    return this.#credential({
      clientDataJSON,
      authenticatorData: authenticatorData.toString('base64url'),
      signature: signature.toString('base64url'),
      userHandle: this.#userHandle,
    });
  }

  /** As a WebAuthnDevice (authkoa/client's `webauthn` option): the two calls with the JSON options. */
  async create(options: { challenge: string; user: { id: string } }) {
    return this.register(options);
  }

  async get(options: { challenge: string }) {
    return this.assert(options);
  }

  #authData(flags: number): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(++this.#counter);
    return Buffer.concat([sha256(this.rpID), Buffer.from([flags]), counter]);
  }

  #clientData(type: string, challenge: string): string {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false })).toString(
      'base64url',
    );
  }

  #credential(response: Record<string, unknown>) {
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
