import { loadWithPackage } from '../../util/optional.js';
import { NameTable } from '../../util/table.js';
import type { AnyProviderModule } from './contract.js';

/** The built-in provider kinds; each module is imported when a configuration first uses the kind. */
export const providerKinds = new NameTable<AnyProviderModule>('provider kind', 'registerProvider()', {
  direct: () => import('../direct.js').then((m) => m.directProvider),
  verified: () => import('../verified.js').then((m) => m.verifiedProvider),
  social: () => import('../social.js').then((m) => m.socialProvider),
  oauth2: () => import('../oauth2.js').then((m) => m.oauth2Provider),
  oidc: () => import('../oidc.js').then((m) => m.oidcProvider),
  dev: () => import('../dev.js').then((m) => m.devProvider),
  // Only the local OAuth2 server keeps sessions: koa-session (and the zod it brings) is an optional peer.
  server: () =>
    loadWithPackage('koa-session', 'the server provider', () => import('../server.js')).then((m) => m.serverProvider),
  apple: () => import('../apple.js').then((m) => m.appleProvider),
  telegram: () =>
    loadWithPackage('node-telegram-bot-api', 'the telegram provider', () => import('../telegram.js')).then(
      (m) => m.telegramProvider,
    ),
  passkey: () =>
    loadWithPackage('@simplewebauthn/server', 'the passkey provider', () => import('../passkey.js')).then(
      (m) => m.passkeyProvider,
    ),
});

/** Catalog rows of the `social` kind (providers/social.ts; a test keeps the two lists equal), `x` an alias. */
const SOCIAL_NAMES = [
  'google',
  'github',
  'facebook',
  'yandex',
  'battlenet',
  'microsoft',
  'patreon',
  'discord',
  'twitter',
];

/** Built-in names and the kind each resolves to, so `{ name: 'github', cid, csecret }` needs no kind. */
export const builtinNames: ReadonlyMap<string, { kind: string; preset?: string }> = new Map([
  ...SOCIAL_NAMES.map((n) => [n, { kind: 'social', preset: n }] as const),
  ['x', { kind: 'social', preset: 'twitter' }],
  ['dev', { kind: 'dev' }],
  ['apple', { kind: 'apple' }],
  ['passkey', { kind: 'passkey' }],
]);
