/**
 * No secret reaches a feature: with every secret option set and every built-in on, the context a feature gets, each
 * capability a built-in may ask for (built by the instance's own builder), every feature's admin object and the
 * instance itself show none of them to util.inspect (every depth, hidden and symbol properties, getters run) or to
 * JSON.stringify.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { featureCapabilities } from '../../lib/core/feature-capabilities.js';
import { resolveAuthKoaOptions } from '../../lib/core/options.js';
import { coreParts, sessionParts } from '../../lib/core/parts.js';
import type { CapabilityName } from '../../lib/features/capabilities.js';
import { authKoa, type AuthKoaOptions, type FeatureContext, type FeatureModule } from '../../lib/index.js';
import { memoryStateStore } from '../../lib/state/index.js';
import { privateKeyPem } from '../helpers/private-key.js';
import { tempDir } from '../helpers/temp.js';

const SECRETS = {
  secret: 'feature-secret-0123456789abcdef-static',
  previous: 'feature-previous-secret-0123456789abcdef',
  mfa: 'feature-mfa-sealing-secret-0123456789',
  mfaPrevious: 'feature-mfa-previous-secret-012345678',
  github: 'github-client-secret-6a7b8c9d0e',
  admin: 'admin-basic-password-4c2e9a',
  auditKey: 'audit-hmac-key-0123456789abcdef0123456789',
  webhook: `whsec_${randomBytes(32).toString('base64')}`,
  receiver: 'ssf-receiver-bearer-0123456789abcdefghij',
};

/** The options with every secret set and every built-in on, and an application feature that keeps its context. */
function everything(contexts: FeatureContext[], audit: string): { options: AuthKoaOptions; secrets: string[] } {
  const signing = privateKeyPem();
  const spy: FeatureModule = {
    name: 'spy',
    create(_options, context) {
      contexts.push(context);
      return {};
    },
  };
  const options: AuthKoaOptions = {
    secret: SECRETS.secret,
    previousSecrets: [SECRETS.previous],
    url: 'http://127.0.0.1:1',
    logger: () => {},
    telemetry: false,
    allowVolatileStores: true,
    stateStore: memoryStateStore(),
    adminPasswd: SECRETS.admin,
    audit,
    auditKey: SECRETS.auditKey,
    signing: { alg: 'EdDSA', key: signing.pem },
    mfa: { store: memoryStateStore(), secret: SECRETS.mfa, previousSecrets: [SECRETS.mfaPrevious] },
    accounts: { store: 'memory://' },
    tokens: true,
    webhooks: [{ url: 'http://127.0.0.1:1/hooks', secret: SECRETS.webhook, events: ['login'], allowPrivate: true }],
    ssf: { receivers: [{ id: 'r', credential: SECRETS.receiver, poll: true }] },
    features: [spy],
    providers: [
      { name: 'github', cid: 'github-client-id', csecret: SECRETS.github },
      { kind: 'password', name: 'local', sender: () => Promise.resolve() },
    ],
  } as AuthKoaOptions;
  return { options, secrets: [...Object.values(SECRETS), signing.body] };
}

const printed = (value: unknown) =>
  [
    JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) ?? '',
    inspect(value, { depth: Infinity, showHidden: true, getters: true }),
  ].join('\n');

const leaks = (value: unknown, secrets: string[]) =>
  [...secrets, 'PRIVATE KEY', 'PrivateKeyObject'].filter((s) => printed(value).includes(s));

test('every feature context, admin object and the instance show no secret, with every secret option set', async (t) => {
  const contexts: FeatureContext[] = [];
  const { options, secrets } = everything(contexts, join(tempDir(t), 'audit.log'));
  const auth = authKoa(options);
  t.teardown(() => auth.close());
  await auth.ready;
  const names = auth.features.list();
  t.deepEqual(names, ['spy', 'sessions', 'jwks', 'accounts', 'tokens', 'mfa', 'webhooks', 'ssf'], 'every built-in on');
  t.is(contexts.length, 1, 'the context was kept');
  t.deepEqual(leaks(contexts[0], secrets), [], 'the feature context');
  for (const name of names) t.deepEqual(leaks(auth.features.get(name), secrets), [], `the admin of ${name}`);
  t.deepEqual(leaks(auth, secrets), [], 'the instance');
});

test('each capability a built-in may ask for shows no secret: built by the instance’s own builder', async (t) => {
  const { options, secrets } = everything([], join(tempDir(t), 'audit.log'));
  const o = resolveAuthKoaOptions(options);
  const core = coreParts(o);
  t.teardown(() => core.state.close());
  const capability = featureCapabilities(o, core, sessionParts(o, core));
  const all: CapabilityName[] = [
    ...['sessionTimes', 'endSessions', 'factorChanged', 'coreEvents', 'eventTap', 'tracing', 'publicKeys'],
    ...['signer', 'issuer', 'tokens', 'startSession', 'navigationSession', 'presentedToken', 'throttle'],
    ...['providers', 'featureHooks', 'stores', 'cookies', 'safeRedirect', 'strictRevocation', 'loginConfig'],
  ] as CapabilityName[];
  for (const name of all) t.deepEqual(leaks(capability(name), secrets), [], name);
  t.truthy(capability('signer'), 'the signer is there: it holds the key where no printing reaches');
  // The secrets are where the instance keeps them: the check looks for strings that exist.
  t.true(leaks(o, secrets).length >= 6, 'the resolved options hold the secrets the test looks for');
});
