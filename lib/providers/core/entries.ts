/**
 * The built-in kinds' options, entered into ProviderKinds (provider.ts), which is what types an entry of
 * `opts.providers`: `kind: 'direct'` gives `checker` its parameter types and makes a misspelled option an
 * error. A built-in name stands for its kind as builtinNames (kinds.ts) resolves it at start-up:
 * `{ name: 'github', cid, csecret }` is a social entry, `{ name: 'dev' }` a dev one.
 *
 * The entries are merged into ProviderKinds from here rather than declared in provider.ts because the
 * kinds' option types import the provider contract, which provider.ts is part of. The main entry exports
 * from this module, so whoever imports `authkoa` has them.
 */
import type { AppleProviderOptions } from '../apple.js';
import type { DevProviderOptions } from '../dev.js';
import type { DirectProviderOptions } from '../direct.js';
import type { OAuth2ProviderOptions } from '../oauth2.js';
import type { OIDCProviderOptions } from '../oidc.js';
import type { PasskeyProviderOptions } from '../passkey.js';
import type { ServerProviderOptions } from '../server.js';
import type { SocialProviderOptions } from '../social.js';
import type { TelegramProviderOptions } from '../telegram.js';
import type { VerifiedProviderOptions } from '../verified.js';

export type { ProviderEntry, ProviderKinds } from './provider.js';

/** The built-in social names: the `social` kind's catalog rows, and `x`, another name for twitter. */
export type SocialName =
  'google' | 'github' | 'facebook' | 'yandex' | 'battlenet' | 'microsoft' | 'patreon' | 'discord' | 'twitter' | 'x';

/** A kind its built-in name stands for: `{ kind, … }` under any name, or `{ name, … }` with the kind left out. */
type ByKindOrName<O, K extends string, N extends string> = (O & { kind: K }) | (O & { name: N });

declare module './provider.js' {
  interface ProviderKinds {
    direct: DirectProviderOptions;
    verified: VerifiedProviderOptions;
    /**
     * `{ name: 'github', cid, csecret }`; under another name, a row is picked by `preset`: `{ kind: 'social', name:
     * 'ghe', preset: 'github', … }`.
     */
    social:
      | (SocialProviderOptions & { name: SocialName; preset?: undefined })
      | (SocialProviderOptions & { kind: 'social'; preset: Exclude<SocialName, 'x'> });
    oauth2: OAuth2ProviderOptions;
    oidc: OIDCProviderOptions;
    dev: ByKindOrName<DevProviderOptions, 'dev', 'dev'>;
    server: ServerProviderOptions;
    apple: ByKindOrName<AppleProviderOptions, 'apple', 'apple'>;
    telegram: TelegramProviderOptions;
    passkey: ByKindOrName<PasskeyProviderOptions, 'passkey', 'passkey'>;
  }
}
