/**
 * The document as other tools read it: Redocly's `recommended` rules and Spectral's `oas` rules
 * (spec/openapi/linters.ts) find no error in the document of a rich configuration (every kind that
 * describes its own routes, two providers of one kind, a kind described generically, oidc's back-channel logout, the second factor,
 * accounts, sessions, signing keys, the Shared Signals transmitter, avatars, basic auth, a feature written outside the
 * package), and every operation has an `operationId`, unique, named
 * by the rule of lib/openapi/operation-ids.ts (the list below is what generated clients call).
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { AuthKoaOptions } from '../../lib/index.js';
import { openApiDocument, type OpenAPIConfig } from '../../lib/openapi/document.js';
import { BENCH_KEYS } from '../../bench/keys.js';
import { startApp } from '../helpers/http.js';
import { BOT_TOKEN, startFakeBotApi } from '../helpers/telegram.js';
import { tempDir } from '../helpers/temp.js';
import { redocly, spectral } from './linters.js';
import { acceptTerms } from '../features/accept-terms.js';

type Doc = { paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>> };

async function richDocument(t: ExecutionContext): Promise<Doc> {
  const dir = tempDir(t);
  const api = await startFakeBotApi();
  t.teardown(() => api.close());
  const options = {
    secret: 'openapi-lint-secret-0123456789abcdefghij',
    telemetry: false,
    basicAuthChecker: () => false,
    avatarStore: `lmdb://${dir}/avatars`,
    signing: { alg: 'EdDSA', key: BENCH_KEYS.EdDSA },
    mfa: { store: `lmdb://${dir}/mfa` },
    accounts: { store: `lmdb://${dir}/accounts` },
    tokens: { scopes: ['repo:read', 'repo:write'] },
    stateStore: `lmdb://${dir}/state`,
    ssf: { receivers: [{ id: 'api', credential: 'lint-receiver-credential-0123456789abcdef', poll: true }] },
    // A feature written outside the package: its part of the document is linted with authkoa's.
    features: [acceptTerms({ version: '1' })],
    providers: [
      { kind: 'direct', name: 'local', checker: () => false },
      { kind: 'direct', name: 'staff', checker: () => false },
      { kind: 'verified', name: 'email', sender: () => {} },
      { kind: 'password', name: 'members', sender: () => {} },
      { kind: 'telegram', name: 'telegram', token: BOT_TOKEN, apiRoot: api.apiRoot, pollTimeout: 1 },
      { kind: 'passkey', rpName: 'lint tests' },
      { kind: 'dev', port: 0 },
      // Discovery waits for the first login: the issuer is never reached here. Its back-channel route is linted.
      { kind: 'oidc', name: 'corp', issuer: 'http://127.0.0.1:9', cid: 'lint', csecret: 'lint' },
    ],
  } as unknown as AuthKoaOptions;
  const app = await startApp(options);
  t.teardown(() => app.close());
  return (await app.auth.openapi()) as unknown as Doc;
}

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op })),
  );

test("Redocly's recommended rules find no error in the document of a rich configuration", async (t) => {
  const doc = await richDocument(t);
  const found = await redocly(doc);
  t.deepEqual(found.errors, []);
  t.log(`Redocly: ${found.warnings.length} warnings`, found.warnings);
  // Warnings that matter to generators: an operation without an id, a required key without its schema.
  const rules = found.warnings.map((w) => w.split(' ')[0]);
  t.false(rules.includes('operation-operationId'), 'every operation has an operationId');
  t.false(rules.includes('no-required-schema-properties-undefined'), 'every required key has its schema (KeySet)');
  // The rule that found the 47 errors still runs: a public route without its `security: []` is one.
  delete doc.paths['/auth/list']!.get!.security;
  t.deepEqual(
    (await redocly(doc)).errors.map((e) => e.split(':')[0]),
    ['security-defined #/paths/~1auth~1list/get'],
  );
});

test("Spectral's oas rules find no error in the document of a rich configuration", async (t) => {
  const doc = await richDocument(t);
  const found = await spectral(doc);
  t.deepEqual(found.errors, []);
  t.log(`Spectral: ${found.warnings.length} warnings`, found.warnings);
  t.false(
    found.warnings.some((w) => w.startsWith('operation-operationId ')),
    'no operation without an operationId',
  );
});

test("every operation has an operationId, unique, named from its method and path; a provider's carry its name", async (t) => {
  const doc = await richDocument(t);
  const ids = operations(doc).map(({ method, path, op }) => `${method.toUpperCase()} ${path} ${op.operationId}`);
  t.deepEqual(ids, EXPECTED);
  const unique = new Set(operations(doc).map(({ op }) => op.operationId));
  t.is(unique.size, ids.length);
});

const CONFIG: OpenAPIConfig = {
  url: 'http://app.example',
  authRoutePath: '/auth',
  avatarRoutePath: '/avatar',
  jwtCookieName: 'JWT',
  xsrfHeaderName: 'X-XSRF-TOKEN',
  jwtHeaderName: 'X-JWT',
  jwtQueryName: 'token',
  basic: false,
  avatars: true,
};

test('the ids do not follow the prefixes; provider names that give the same words are told apart in document order', (t) => {
  const provider = (name: string) => ({ name, kind: 'direct', callback: false, actions: [] });
  const idsOf = (c: OpenAPIConfig) =>
    operations(openApiDocument(c, [provider('my-app'), provider('my_app')]) as unknown as Doc).map(
      ({ op }) => op.operationId,
    );
  const ids = idsOf(CONFIG);
  t.deepEqual(idsOf({ ...CONFIG, authRoutePath: '/api/v2/auth', avatarRoutePath: '/img' }), ids);
  t.true(ids.includes('getAvatarById'));
  t.deepEqual(
    ids.filter((id) => id!.includes('MyApp')),
    [
      'getMyAppLogin',
      'postMyAppLogin',
      'getMyAppLogout',
      'postMyAppLogout',
      'getMyAppLogin_2',
      'postMyAppLogin_2',
      'getMyAppLogout_2',
      'postMyAppLogout_2',
    ],
  );
});

/** Method, path and operationId of each operation of the rich configuration, in the document's order. */
const EXPECTED = [
  'GET /auth/list getList',
  'GET /auth/user getUser',
  'GET /auth/status getStatus',
  'GET /auth/logout getLogout',
  'POST /auth/logout postLogout',
  'GET /auth/terms getTerms',
  'GET /auth/sessions getSessions',
  'POST /auth/sessions/revoke-others postSessionsRevokeOthers',
  'DELETE /auth/sessions/{sid} deleteSessionsBySid',
  'GET /auth/.well-known/jwks.json getWellKnownJwksJson',
  'GET /auth/links getLinks',
  'DELETE /auth/links/{identity} deleteLinksByIdentity',
  'GET /auth/tokens getTokens',
  'POST /auth/tokens postTokens',
  'DELETE /auth/tokens/{id} deleteTokensById',
  'GET /auth/mfa getMfa',
  'POST /auth/mfa/totp/setup postMfaTotpSetup',
  'POST /auth/mfa/totp/confirm postMfaTotpConfirm',
  'DELETE /auth/mfa/totp deleteMfaTotp',
  'POST /auth/mfa/recovery-codes postMfaRecoveryCodes',
  'POST /auth/mfa/verify postMfaVerify',
  'POST /auth/mfa/passkey/options postMfaPasskeyOptions',
  'POST /auth/mfa/passkey postMfaPasskey',
  'GET /auth/mfa/page getMfaPage',
  'GET /auth/mfa/client.js getMfaClientJs',
  'GET /auth/.well-known/ssf-configuration getWellKnownSsfConfiguration',
  'GET /auth/ssf/stream getSsfStream',
  'POST /auth/ssf/poll postSsfPoll',
  'GET /auth/local/login getLocalLogin',
  'POST /auth/local/login postLocalLogin',
  'GET /auth/local/logout getLocalLogout',
  'POST /auth/local/logout postLocalLogout',
  'GET /auth/local/callback getLocalCallback',
  'POST /auth/local/callback postLocalCallback',
  'GET /auth/staff/login getStaffLogin',
  'POST /auth/staff/login postStaffLogin',
  'GET /auth/staff/logout getStaffLogout',
  'POST /auth/staff/logout postStaffLogout',
  'GET /auth/staff/callback getStaffCallback',
  'POST /auth/staff/callback postStaffCallback',
  'GET /auth/email/login getEmailLogin',
  'POST /auth/email/login postEmailLogin',
  'GET /auth/email/logout getEmailLogout',
  'POST /auth/email/logout postEmailLogout',
  'GET /auth/email/callback getEmailCallback',
  'POST /auth/email/callback postEmailCallback',
  'POST /auth/members/login postMembersLogin',
  'GET /auth/members/logout getMembersLogout',
  'POST /auth/members/logout postMembersLogout',
  'POST /auth/members/signup postMembersSignup',
  'GET /auth/members/confirm getMembersConfirm',
  'POST /auth/members/confirm postMembersConfirm',
  'POST /auth/members/reset postMembersReset',
  'GET /auth/members/reset/confirm getMembersResetConfirm',
  'POST /auth/members/reset/confirm postMembersResetConfirm',
  'POST /auth/members/password postMembersPassword',
  'POST /auth/members/email postMembersEmail',
  'DELETE /auth/members/account deleteMembersAccount',
  'GET /auth/telegram/login getTelegramLogin',
  'POST /auth/telegram/login postTelegramLogin',
  'GET /auth/telegram/logout getTelegramLogout',
  'POST /auth/telegram/logout postTelegramLogout',
  'POST /auth/telegram/webhook postTelegramWebhook',
  'POST /auth/passkey/login postPasskeyLogin',
  'GET /auth/passkey/logout getPasskeyLogout',
  'POST /auth/passkey/logout postPasskeyLogout',
  'POST /auth/passkey/register/options postPasskeyRegisterOptions',
  'POST /auth/passkey/register postPasskeyRegister',
  'POST /auth/passkey/login/options postPasskeyLoginOptions',
  'GET /auth/passkey/list getPasskeyList',
  'DELETE /auth/passkey/{id} deletePasskeyById',
  'GET /auth/dev/login getDevLogin',
  'POST /auth/dev/login postDevLogin',
  'GET /auth/dev/logout getDevLogout',
  'POST /auth/dev/logout postDevLogout',
  'GET /auth/dev/callback getDevCallback',
  'POST /auth/dev/callback postDevCallback',
  'GET /auth/corp/login getCorpLogin',
  'POST /auth/corp/login postCorpLogin',
  'GET /auth/corp/logout getCorpLogout',
  'POST /auth/corp/logout postCorpLogout',
  'GET /auth/corp/callback getCorpCallback',
  'POST /auth/corp/callback postCorpCallback',
  'POST /auth/corp/backchannel-logout postCorpBackchannelLogout',
  'GET /avatar/{id} getAvatarById',
];
