import type { Logger } from '../logger.js';
import type { Provider, ProviderDeps, ProviderModule } from './core/contract.js';
import { field, finishUser, text, type RawUser } from './oauth2/mapping.js';
import {
  COMMON_OAUTH2_OPTIONS,
  commonOptions,
  userInfoEndpoints,
  type CommonOAuth2Options,
  type OAuthToken,
} from './oauth2/options.js';
import type { Endpoints, Identified } from './oauth2/types.js';
import { createUserInfoProvider } from './oauth2/user-info.js';
import { optionNames } from '../util/options.js';

/**
 * The built-in social providers (Google, GitHub, Facebook, Yandex, Battle.net, Microsoft, Patreon,
 * Discord, X) as rows of data: where each one lives, the minimal scopes, and how its user-info JSON
 * becomes a user. Adding a provider is adding a row and a test.
 */

/** Per-entry options a row may read (GitHub's numeric ids, Microsoft's tenant). */
export interface RowOptions {
  numericId?: boolean;
  tenant?: string;
}

export interface CatalogRow {
  endpoints(o: RowOptions, log: Logger): Required<Endpoints>;
  scopes: readonly string[];
  /** Token-endpoint client authentication; 'body' where the provider wants credentials as form fields. */
  authMethod?: 'header' | 'body';
  map(data: Record<string, unknown>, o: RowOptions, log: Logger): RawUser;
  /** Name when the provider gave none, built from the final id the way the original does. */
  noName?(this: void, id: string): string;
  /** The picture URL needs the user's bearer token (Microsoft Graph's photo). */
  avatarBearer?: boolean;
}

const MS_PHOTO = 'https://graph.microsoft.com/beta/me/photo/$value';

export const catalog: Record<string, CatalogRow> = {
  google: {
    endpoints: () => ({
      authURL: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenURL: 'https://oauth2.googleapis.com/token',
      infoURL: 'https://www.googleapis.com/oauth2/v3/userinfo',
    }),
    scopes: ['https://www.googleapis.com/auth/userinfo.profile'],
    authMethod: 'body',
    map: (d) => ({ id: text(d, 'sub'), name: text(d, 'name'), picture: text(d, 'picture') }),
    // The original slices the full id at 8..12: the hash's 2nd to 5th digits (`noname_1b30` for 01b307…).
    noName: (id) => `noname_${id.slice(8, 12)}`,
  },
  github: {
    endpoints: () => ({
      authURL: 'https://github.com/login/oauth/authorize',
      tokenURL: 'https://github.com/login/oauth/access_token',
      infoURL: 'https://api.github.com/user',
    }),
    scopes: [],
    map(d, o, log) {
      const login = text(d, 'login');
      let id = login;
      if (o.numericId) {
        // Logins can be renamed and recycled; the numeric id cannot. Opt-in because it changes every id.
        const n = field(d, 'id');
        if (typeof n === 'number' && Number.isSafeInteger(n) && n > 0) id = `gid:${n}`;
        else log.warn(`github: user info has no numeric id, falling back to the login`);
      }
      return { id, name: text(d, 'name') || login, picture: text(d, 'avatar_url') };
    },
  },
  facebook: {
    endpoints: () => ({
      authURL: 'https://www.facebook.com/v21.0/dialog/oauth',
      tokenURL: 'https://graph.facebook.com/v21.0/oauth/access_token',
      infoURL: 'https://graph.facebook.com/v21.0/me?fields=id,name,picture',
    }),
    scopes: ['public_profile'],
    map: (d) => ({ id: text(d, 'id'), name: text(d, 'name'), picture: text(d, 'picture.data.url') }),
    noName: (id) => id.slice(0, 16),
  },
  yandex: {
    endpoints: () => ({
      authURL: 'https://oauth.yandex.com/authorize',
      tokenURL: 'https://oauth.yandex.com/token',
      infoURL: 'https://login.yandex.ru/info?format=json',
    }),
    scopes: [],
    map(d) {
      const ava = text(d, 'default_avatar_id');
      return {
        id: text(d, 'id'),
        name: text(d, 'display_name') || text(d, 'real_name') || text(d, 'login'),
        picture: ava ? `https://avatars.yandex.net/get-yapic/${encodeURIComponent(ava)}/islands-200` : '',
      };
    },
  },
  battlenet: {
    // Blizzard serves every region from oauth.battle.net now; the regional hosts the original used are legacy.
    endpoints: () => ({
      authURL: 'https://oauth.battle.net/authorize',
      tokenURL: 'https://oauth.battle.net/token',
      infoURL: 'https://oauth.battle.net/userinfo',
    }),
    scopes: [],
    authMethod: 'body',
    // `id` is a JSON number: Go's %v formatting keeps ids equal to the original's (1.345027e+06).
    map: (d) => ({ id: text(d, 'id'), name: text(d, 'battletag') }),
  },
  microsoft: {
    endpoints(o) {
      const base = `https://login.microsoftonline.com/${o.tenant}/oauth2/v2.0`;
      return {
        authURL: `${base}/authorize`,
        tokenURL: `${base}/token`,
        infoURL: 'https://graph.microsoft.com/v1.0/me',
      };
    },
    scopes: ['User.Read'],
    map: (d) => ({ id: text(d, 'id'), name: text(d, 'displayName'), picture: MS_PHOTO }),
    avatarBearer: true,
  },
  patreon: {
    endpoints: () => ({
      authURL: 'https://www.patreon.com/oauth2/authorize',
      tokenURL: 'https://www.patreon.com/api/oauth2/token',
      infoURL: 'https://www.patreon.com/api/oauth2/api/current_user',
    }),
    scopes: [],
    authMethod: 'body',
    map(d) {
      const pledges = field(d, 'data.relationships.pledges.data');
      return {
        id: text(d, 'data.id'),
        name: text(d, 'data.attributes.full_name'),
        picture: text(d, 'data.attributes.image_url'),
        attrs: Array.isArray(pledges) && pledges.length > 0 ? { is_paid_sub: true } : undefined,
      };
    },
  },
  discord: {
    endpoints: () => ({
      authURL: 'https://discord.com/oauth2/authorize',
      tokenURL: 'https://discord.com/api/oauth2/token',
      infoURL: 'https://discord.com/api/v10/users/@me',
    }),
    scopes: ['identify'],
    map(d) {
      const id = text(d, 'id');
      const avatar = text(d, 'avatar');
      // Unlike the original, no URL is made up for a user without an avatar: the proxy's identicon is better.
      return {
        id,
        name: text(d, 'username'),
        picture: avatar
          ? `https://cdn.discordapp.com/avatars/${encodeURIComponent(id)}/${encodeURIComponent(avatar)}.webp`
          : '',
      };
    },
  },
  twitter: {
    // X on OAuth 2.0 with PKCE (OAuth 1.0a is closed to new apps). Ids are the same numbers as id_str.
    endpoints: () => ({
      authURL: 'https://x.com/i/oauth2/authorize',
      tokenURL: 'https://api.x.com/2/oauth2/token',
      infoURL: 'https://api.x.com/2/users/me?user.fields=profile_image_url',
    }),
    scopes: ['users.read', 'tweet.read'],
    map: (d) => ({
      id: text(d, 'data.id'),
      name: text(d, 'data.username') || text(d, 'data.name'),
      picture: text(d, 'data.profile_image_url'),
    }),
  },
};

/** Built-in names → catalog rows; `x` is another name for the X/Twitter row. */
export const catalogNames: Record<string, string> = {
  ...Object.fromEntries(Object.keys(catalog).map((k) => [k, k])),
  x: 'twitter',
};

/** Options of a built-in social provider: `{ name: 'github', cid, csecret }` is all most users write. */
export interface SocialProviderOptions extends CommonOAuth2Options {
  /** Implied by a built-in name; needed with `preset`. */
  kind?: 'social';
  /**
   * A built-in name (google, github, facebook, yandex, battlenet, microsoft, patreon, discord, twitter or x), or any
   * name with `preset`.
   */
  name: string;
  /** The built-in row a provider of another name uses: `{ kind: 'social', name: 'ghe', preset: 'github', … }`. */
  preset?: string;
  /** GitHub: ids from the numeric user id (`gid:<n>`) instead of the login. */
  numericId?: boolean;
  /** Microsoft: tenant (default `common`: work, school and personal accounts). */
  tenant?: string;
  /** Overrides the provider's authorize and token URLs (GitHub Enterprise, tests). */
  endpoint?: { authURL?: string; tokenURL?: string };
  /** Overrides the provider's user-info URL. */
  infoURL?: string;
}

/** A tenant the original would accept; anything that could change the URL's path falls back to `common`. */
function tenantOf(value: unknown, log: Logger): string {
  if (value === undefined || value === '') return 'common';
  if (typeof value !== 'string') throw new TypeError('tenant must be a string');
  if (/[/?#\s]/.test(value) || value.includes('..')) {
    log.warn(`microsoft: tenant ${JSON.stringify(value)} is not usable in a URL, using "common"`);
    return 'common';
  }
  return encodeURIComponent(value);
}

/** A social entry's checked options: its catalog row and what the row reads. */
interface SocialConfig {
  name: string;
  row: CatalogRow;
  rowOpts: RowOptions;
  common: ReturnType<typeof commonOptions>;
  ep: Required<Endpoints>;
}

/** The `social` kind: every catalog row, picked by the entry's name (or `preset`). */
export const socialProvider: ProviderModule = {
  kind: 'social',
  options: optionNames<SocialProviderOptions & { kind?: 'social'; preset?: string }>({
    ...COMMON_OAUTH2_OPTIONS,
    kind: true,
    name: true,
    preset: true,
    numericId: true,
    tenant: true,
    endpoint: true,
    infoURL: true,
  }),
  create(opts, deps: ProviderDeps): Provider {
    const config = parseSocialOptions(opts, deps.logger);
    const spec = { ...config.common, name: config.name, kind: 'social' };
    return createUserInfoProvider(spec, config.ep, (data, token) => rowUser(config, deps, data, token), deps);
  },
};

/** Picks the entry's catalog row and checks its options against it; TypeErrors name the option. */
function parseSocialOptions(opts: Record<string, unknown>, log: Logger): SocialConfig {
  const name = opts.name;
  if (typeof name !== 'string' || !name) throw new TypeError('name is required');
  const preset = typeof opts.preset === 'string' ? opts.preset : catalogNames[name.toLowerCase()];
  const row = preset ? catalog[preset] : undefined;
  if (!row)
    throw new TypeError(`"${name}" is not a built-in provider (known: ${Object.keys(catalogNames).join(', ')})`);
  const common = commonOptions(opts, { scopes: row.scopes, authMethod: row.authMethod });
  if (opts.numericId !== undefined && typeof opts.numericId !== 'boolean')
    throw new TypeError('numericId must be a boolean');
  const rowOpts: RowOptions = { numericId: opts.numericId === true, tenant: tenantOf(opts.tenant, log) };
  const defaults = row.endpoints(rowOpts, log);
  const endpoint = (opts.endpoint ?? {}) as Record<string, unknown>;
  if (typeof endpoint !== 'object' || endpoint === null) throw new TypeError('endpoint must be { authURL, tokenURL }');
  return { name, row, rowOpts, common, ep: userInfoEndpoints(endpoint, opts.infoURL, defaults) };
}

/** The user from the user-info JSON by the row's mapping; Microsoft's photo is fetched with the user's bearer token. */
function rowUser(
  { name, row, rowOpts, common }: SocialConfig,
  deps: ProviderDeps,
  data: Record<string, unknown>,
  token: OAuthToken,
): Identified {
  const user = finishUser(name, row.map(data, rowOpts, deps.logger), data, common.userAttributes, {
    noName: row.noName,
    userId: deps.userId,
  });
  return {
    user,
    avatarHeaders: row.avatarBearer && user.picture ? { Authorization: `Bearer ${token.access_token}` } : undefined,
  };
}
