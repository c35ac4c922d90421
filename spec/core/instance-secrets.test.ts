/**
 * What `authKoa()` returns can be logged: neither JSON.stringify nor util.inspect (every depth, hidden
 * and symbol properties, getters run) reaches an option, a secret or a key of its configuration, before
 * or after start-up. The parts stay reachable to the package's own tests through internalsOf().
 */
import { inspect } from 'node:util';
import test from 'ava';
import { authKoa, type AuthKoa, type AuthKoaOptions } from '../../lib/index.js';
import { internalsOf } from '../../lib/instance.js';
import { memoryStateStore } from '../../lib/state/index.js';
import { privateKeyPem } from '../helpers/private-key.js';

const SECRETS = {
  secret: 'instance-secret-0123456789abcdef-static',
  previous: 'instance-previous-secret-0123456789abcdef',
  mfa: 'instance-mfa-sealing-secret-0123456789',
  mfaPrevious: 'instance-mfa-previous-secret-0123456789',
  github: 'github-client-secret-5f1d2c3b4a',
  oauth2: 'custom-oauth2-client-secret-9e8d7c',
  oidc: 'oidc-client-secret-1a2b3c4d5e',
  admin: 'admin-basic-password-77c1e0',
};

function richOptions(): { options: AuthKoaOptions; secrets: string[] } {
  const signing = privateKeyPem();
  const previousKey = privateKeyPem();
  const apple = privateKeyPem('ec');
  const options: AuthKoaOptions = {
    secret: SECRETS.secret,
    previousSecrets: [SECRETS.previous],
    url: 'http://127.0.0.1:1',
    logger: () => {},
    telemetry: false,
    allowVolatileStores: true,
    adminPasswd: SECRETS.admin,
    basicAuthChecker: (user, passwd) => ({ ok: user === 'admin' && passwd === SECRETS.admin }),
    signing: { alg: 'EdDSA', key: signing.pem, previousKeys: [previousKey.pem] },
    mfa: { store: memoryStateStore(), secret: SECRETS.mfa, previousSecrets: [SECRETS.mfaPrevious] },
    providers: [
      { name: 'github', cid: 'github-client-id', csecret: SECRETS.github },
      {
        kind: 'oauth2',
        name: 'corp',
        cid: 'corp-client-id',
        csecret: SECRETS.oauth2,
        endpoint: { authURL: 'http://127.0.0.1:1/authorize', tokenURL: 'http://127.0.0.1:1/token' },
        infoURL: 'http://127.0.0.1:1/userinfo',
        mapUser: (data) => ({ id: String(data.sub), name: String(data.name), picture: '' }),
      },
      { kind: 'apple', clientId: 'com.example.web', teamId: 'TEAM123456', keyId: 'KEY7654321', privateKey: apple.pem },
      { kind: 'direct', name: 'local', checker: () => true },
    ],
  };
  return { options, secrets: [...Object.values(SECRETS), signing.body, previousKey.body, apple.body] };
}

/** Every way the instance might be logged, as one text. */
function printed(auth: AuthKoa): string {
  return [
    JSON.stringify(auth) ?? '',
    JSON.stringify({ ...auth }),
    inspect(auth, { depth: Infinity, showHidden: true, getters: true }),
    inspect({ ...auth }, { depth: Infinity, showHidden: true, getters: true }),
    String(auth),
  ].join('\n');
}

function leaks(text: string, secrets: string[]): string[] {
  return [...secrets, 'PRIVATE KEY', 'PrivateKeyObject'].filter((s) => text.includes(s));
}

test('JSON.stringify and util.inspect of an instance show no secret or private key, before and after start-up', async (t) => {
  const { options, secrets } = richOptions();
  const auth = authKoa(options);
  try {
    t.deepEqual(leaks(printed(auth), secrets), [], 'before ready');
    await auth.ready;
    t.deepEqual(leaks(printed(auth), secrets), [], 'after ready');
    // What it carries is the public API, nothing more (no options, no token service, no registry).
    const api = [
      'accounts',
      'authorizationServer',
      'avatarProxy',
      'close',
      'eventTypes',
      'features',
      'mfa',
      'middleware',
      'off',
      'on',
      'openapi',
      'providers',
      'ready',
      'revokeSessions',
      'sessions',
      'tokens',
    ];
    t.deepEqual(Object.keys(auth).sort(), api);
    // The public tools are there, and answer: the list of providers is names and kinds only.
    t.deepEqual(
      auth.providers.list().map((p) => `${p.name}:${p.kind}`),
      ['github:social', 'corp:oauth2', 'apple:apple', 'local:direct'],
    );
    t.deepEqual(auth.providers.get('corp'), { name: 'corp', kind: 'oauth2' });
    t.deepEqual(leaks(inspect(auth.providers.list(), { depth: Infinity, showHidden: true }), secrets), []);
    // The secrets are where the service keeps them: the check above looks for strings that exist.
    const inside = inspect(internalsOf(auth).options, { depth: Infinity, showHidden: true });
    t.true(leaks(inside, secrets).length >= 7, 'the resolved options hold the secrets the test looks for');
  } finally {
    await auth.close();
  }
});

test('an instance whose start-up failed shows no secret either', async (t) => {
  const { options, secrets } = richOptions();
  // Refused once the kinds are loaded and the providers before it created: ready rejects.
  const late = { kind: 'direct', name: 'late', checker: () => true, chekcer: true } as never;
  const auth = authKoa({ ...options, providers: [...options.providers!, late] });
  const err = await t.throwsAsync(auth.ready);
  t.regex(err!.message, /chekcer/);
  t.deepEqual(leaks(printed(auth), secrets), []);
  await auth.close();
});
