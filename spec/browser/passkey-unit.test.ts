/**
 * Node unit tests of the passkey code's pure parts, which live in the client (browser/client/) and which
 * the deprecated helpers of browser/passkey.ts use through it: base64url, the fallback conversions used
 * when the browser lacks PublicKeyCredential.parse*FromJSON / credential.toJSON(), the XSRF cookie lookup
 * and the error mapping. Importing the modules must not touch `window`.
 */
import test from 'ava';
import fc from 'fast-check';
import { readCookie as _readCookie } from '../../browser/client/cookies.js';
import { AuthClientError, answerError as _errorFrom } from '../../browser/client/errors.js';
import {
  credentialToJSON as _credentialToJSON,
  fromBase64url as _fromBase64url,
  parseCreationOptions as _parseCreationOptions,
  parseRequestOptions as _parseRequestOptions,
  toBase64url as _toBase64url,
} from '../../browser/client/webauthn-json.js';
import { PasskeyError } from '../../browser/passkey.js';

const bytes = (...b: number[]): ArrayBuffer => new Uint8Array(b).buffer;
const list = (buf: ArrayBuffer | BufferSource): number[] =>
  Array.from(
    ArrayBuffer.isView(buf) ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) : new Uint8Array(buf),
  );

test('importing the module touched no browser global', (t) => {
  t.is(typeof (globalThis as { window?: unknown }).window, 'undefined');
  t.is(typeof (globalThis as { document?: unknown }).document, 'undefined');
});

test('base64url: every length mod 3 (encoded length mod 4 = 0, 2, 3), no padding', (t) => {
  t.is(_toBase64url(bytes()), '');
  t.is(_toBase64url(bytes(0x66)), 'Zg'); // 1 byte -> 2 chars
  t.is(_toBase64url(bytes(0x66, 0x6f)), 'Zm8'); // 2 bytes -> 3 chars
  t.is(_toBase64url(bytes(0x66, 0x6f, 0x6f)), 'Zm9v'); // 3 bytes -> 4 chars
  t.deepEqual(list(_fromBase64url('Zg')), [0x66]);
  t.deepEqual(list(_fromBase64url('Zm8')), [0x66, 0x6f]);
  t.deepEqual(list(_fromBase64url('Zm9v')), [0x66, 0x6f, 0x6f]);
  t.deepEqual(list(_fromBase64url('')), []);
});

test('base64url uses - and _ where base64 has + and /, and accepts padded input', (t) => {
  t.is(_toBase64url(bytes(0xfb, 0xff)), '-_8');
  t.is(_toBase64url(bytes(0xfb, 0xef, 0xbe)), '----');
  t.is(_toBase64url(bytes(0xff, 0xff, 0xff)), '____');
  t.deepEqual(list(_fromBase64url('-_8')), [0xfb, 0xff]);
  t.deepEqual(list(_fromBase64url('-_8=')), [0xfb, 0xff]);
  t.deepEqual(list(_fromBase64url('____')), [0xff, 0xff, 0xff]);
  t.throws(() => _fromBase64url('a'), { any: true }); // length mod 4 = 1 is never valid (atob's DOMException)
});

test('base64url agrees with Node and round-trips any bytes, from buffers and from views', (t) => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 70 }), fc.nat(5), (arr, offset) => {
      const text = _toBase64url(arr);
      t.is(text, Buffer.from(arr).toString('base64url'));
      t.deepEqual(list(_fromBase64url(text)), Array.from(arr));
      // a view into a bigger buffer encodes only its own bytes
      const big = new Uint8Array(arr.length + offset + 3).fill(0xaa);
      big.set(arr, offset);
      t.is(_toBase64url(big.subarray(offset, offset + arr.length)), text);
      t.is(_toBase64url(arr.slice().buffer), text);
    }),
  );
});

test('_fromBase64url returns an ArrayBuffer of exactly the decoded length', (t) => {
  const buf = _fromBase64url('AQIDBA');
  t.true(buf instanceof ArrayBuffer);
  t.is(buf.byteLength, 4);
});

const creationJSON: PublicKeyCredentialCreationOptionsJSON = {
  challenge: 'Y2hhbGxlbmdl',
  rp: { name: 'Example', id: 'example.com' },
  user: { id: 'dXNlci0x', name: 'ann@example.com', displayName: 'Ann' },
  pubKeyCredParams: [
    { type: 'public-key', alg: -8 },
    { type: 'public-key', alg: -7 },
  ],
  timeout: 60000,
  attestation: 'none',
  excludeCredentials: [{ id: 'AQID', type: 'public-key', transports: ['internal', 'hybrid'] }],
  authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  extensions: { credProps: true },
  hints: [],
};

test('fallback creation options: challenge, user.id and excludeCredentials ids become ArrayBuffers', (t) => {
  const o = _parseCreationOptions(creationJSON);
  t.true(o.challenge instanceof ArrayBuffer);
  t.is(Buffer.from(o.challenge as ArrayBuffer).toString(), 'challenge');
  t.true(o.user.id instanceof ArrayBuffer);
  t.is(Buffer.from(o.user.id as ArrayBuffer).toString(), 'user-1');
  t.is(o.user.name, 'ann@example.com');
  t.is(o.user.displayName, 'Ann');
  t.deepEqual(o.rp, { name: 'Example', id: 'example.com' });
  t.deepEqual(o.pubKeyCredParams, creationJSON.pubKeyCredParams);
  t.is(o.timeout, 60000);
  t.is(o.attestation, 'none');
  t.deepEqual(o.authenticatorSelection, creationJSON.authenticatorSelection);
  t.deepEqual(o.extensions, { credProps: true });
  t.is(o.excludeCredentials!.length, 1);
  const [ex] = o.excludeCredentials!;
  t.true(ex!.id instanceof ArrayBuffer);
  t.deepEqual(list(ex!.id), [1, 2, 3]);
  t.is(ex!.type, 'public-key');
  t.deepEqual(ex!.transports, ['internal', 'hybrid']);
  // the JSON input is left as it was
  t.is(creationJSON.challenge, 'Y2hhbGxlbmdl');
  t.is(creationJSON.excludeCredentials![0]!.id, 'AQID');
});

test('fallback creation options without excludeCredentials leave it out', (t) => {
  const { excludeCredentials: _, ...json } = creationJSON;
  t.false('excludeCredentials' in _parseCreationOptions(json));
});

test('fallback request options: challenge and allowCredentials ids become ArrayBuffers; empty list stays empty', (t) => {
  const o = _parseRequestOptions({
    challenge: 'AAEC_w',
    rpId: 'example.com',
    timeout: 30000,
    userVerification: 'preferred',
    allowCredentials: [{ id: '-_8', type: 'public-key' }],
  });
  t.true(o.challenge instanceof ArrayBuffer);
  t.deepEqual(list(o.challenge), [0, 1, 2, 255]);
  t.is(o.rpId, 'example.com');
  t.is(o.timeout, 30000);
  t.is(o.userVerification, 'preferred');
  t.true(o.allowCredentials![0]!.id instanceof ArrayBuffer);
  t.deepEqual(list(o.allowCredentials![0]!.id), [0xfb, 0xff]);

  const discoverable = _parseRequestOptions({ challenge: 'AA', allowCredentials: [] });
  t.deepEqual(discoverable.allowCredentials, []);
  t.false('allowCredentials' in _parseRequestOptions({ challenge: 'AA' }));
});

const enc = (s: string) => new TextEncoder().encode(s).buffer as ArrayBuffer;

test('fallback response JSON of a created credential (RegistrationResponseJSON)', (t) => {
  const fake = {
    id: 'AQID',
    rawId: bytes(1, 2, 3),
    type: 'public-key',
    authenticatorAttachment: 'platform',
    response: {
      clientDataJSON: enc('{"type":"webauthn.create"}'),
      attestationObject: bytes(0xa3, 0x63),
      getTransports: () => ['internal', 'hybrid'],
      getAuthenticatorData: () => bytes(9, 9),
      getPublicKey: () => bytes(0xfb, 0xff),
      getPublicKeyAlgorithm: () => -7,
    },
    getClientExtensionResults: () => ({ credProps: { rk: true } }),
  } as unknown as PublicKeyCredential;
  t.deepEqual(_credentialToJSON(fake), {
    id: 'AQID',
    rawId: 'AQID',
    type: 'public-key',
    authenticatorAttachment: 'platform',
    response: {
      clientDataJSON: Buffer.from('{"type":"webauthn.create"}').toString('base64url'),
      attestationObject: 'o2M',
      authenticatorData: 'CQk',
      publicKey: '-_8',
      publicKeyAlgorithm: -7,
      transports: ['internal', 'hybrid'],
    },
    clientExtensionResults: { credProps: { rk: true } },
  });
});

test('fallback response JSON of a minimal created credential: no getters, no attachment', (t) => {
  const fake = {
    id: 'AQID',
    rawId: bytes(1, 2, 3),
    type: 'public-key',
    authenticatorAttachment: null,
    response: { clientDataJSON: enc('{}'), attestationObject: bytes(1) },
  } as unknown as PublicKeyCredential;
  t.deepEqual(_credentialToJSON(fake), {
    id: 'AQID',
    rawId: 'AQID',
    type: 'public-key',
    response: { clientDataJSON: 'e30', attestationObject: 'AQ', transports: [] },
    clientExtensionResults: {},
  });
});

test('fallback response JSON of an assertion (AuthenticationResponseJSON), binary extension outputs encoded', (t) => {
  const fake = {
    id: '-_8',
    rawId: bytes(0xfb, 0xff),
    type: 'public-key',
    authenticatorAttachment: 'cross-platform',
    response: {
      clientDataJSON: enc('{"type":"webauthn.get"}'),
      authenticatorData: bytes(1, 2),
      signature: bytes(3, 4, 5),
      userHandle: enc('user-1'),
    },
    getClientExtensionResults: () => ({
      prf: { enabled: true, results: { first: new Uint8Array([0xff, 0xff, 0xff]) } },
    }),
  } as unknown as PublicKeyCredential;
  t.deepEqual(_credentialToJSON(fake), {
    id: '-_8',
    rawId: '-_8',
    type: 'public-key',
    authenticatorAttachment: 'cross-platform',
    response: {
      clientDataJSON: Buffer.from('{"type":"webauthn.get"}').toString('base64url'),
      authenticatorData: 'AQI',
      signature: 'AwQF',
      userHandle: 'dXNlci0x',
    },
    clientExtensionResults: { prf: { enabled: true, results: { first: '____' } } },
  });
});

test('fallback response JSON of an assertion without userHandle leaves it out', (t) => {
  const fake = {
    id: 'AQ',
    rawId: bytes(1),
    type: 'public-key',
    authenticatorAttachment: null,
    response: { clientDataJSON: enc('{}'), authenticatorData: bytes(1), signature: bytes(2), userHandle: null },
    getClientExtensionResults: () => ({}),
  } as unknown as PublicKeyCredential;
  const json = _credentialToJSON(fake);
  t.deepEqual(json['response'], { clientDataJSON: 'e30', authenticatorData: 'AQ', signature: 'Ag' });
  t.false('authenticatorAttachment' in json);
  t.is(JSON.parse(JSON.stringify(json)).rawId, 'AQ');
});

test('_readCookie finds the named cookie among others and decodes it', (t) => {
  const jar = 'a=1; XSRF-TOKEN=abc%2Fdef; other-XSRF-TOKEN=no;theme=dark';
  t.is(_readCookie(jar, 'XSRF-TOKEN'), 'abc/def');
  t.is(_readCookie(jar, 'theme'), 'dark');
  t.is(_readCookie(jar, 'other-XSRF-TOKEN'), 'no');
  t.is(_readCookie(jar, 'TOKEN'), undefined);
  t.is(_readCookie('', 'XSRF-TOKEN'), undefined);
  t.is(_readCookie('x=%E0%A4%A', 'x'), '%E0%A4%A'); // undecodable values come back raw
  t.is(_readCookie('x=a=b', 'x'), 'a=b');
});

test('the error of a refusal carries the server error message, code and the HTTP status; PasskeyError is AuthClientError', (t) => {
  const e = _errorFrom(403, { error: 'the request comes from another site', code: 'origin_mismatch' });
  t.is(PasskeyError, AuthClientError, 'the old name is an alias of the one error class');
  t.true(e instanceof PasskeyError);
  t.true(e instanceof Error);
  t.is(e.name, 'AuthClientError');
  t.is(e.message, 'the request comes from another site');
  t.is(e.code, 'origin_mismatch');
  t.is(e.status, 403);
  const bare = _errorFrom(502, undefined);
  t.is(bare.message, 'HTTP 502');
  t.is(bare.code, 'http_error');
  t.is(bare.status, 502);
});
