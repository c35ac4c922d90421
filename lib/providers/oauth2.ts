import type { Provider, ProviderDeps, ProviderModule } from './core/contract.js';
import { finishUser, rawFromMapped, type MappedUser } from './oauth2/mapping.js';
import { providerError } from './oauth2/io.js';
import {
  COMMON_OAUTH2_OPTIONS,
  commonOptions,
  userInfoEndpoints,
  type CommonOAuth2Options,
  type OAuthToken,
} from './oauth2/options.js';
import type { Identified } from './oauth2/types.js';
import { createUserInfoProvider } from './oauth2/user-info.js';
import { optionNames } from '../util/options.js';

export type { MappedUser } from './oauth2/mapping.js';

/** Options of a `kind: 'oauth2'` provider: any third-party OAuth2 server, described by its URLs and a user mapper. */
export interface OAuth2ProviderOptions extends CommonOAuth2Options {
  kind: 'oauth2';
  /** Provider name; user ids become `<name>_<sha1(id)>`. Must not be a built-in's name. */
  name: string;
  endpoint: { authURL: string; tokenURL: string };
  /** User-info URL, read with the access token as a bearer. */
  infoURL: string;
  /**
   * Turns the user-info JSON (and the provider token) into the user. A method, so that an application
   * may declare `data` as the shape it expects (`(data: { login: string }) => …`).
   */
  mapUser(data: Record<string, unknown>, token: OAuthToken): MappedUser | Promise<MappedUser>;
}

/** A user id a mapper may return already hashed: `<name>_<sha1>`. */
const HASHED = /^[A-Za-z0-9._~-]+_[0-9a-f]{40}$/;

/** A custom provider's checked options. */
interface OAuth2Config {
  name: string;
  common: ReturnType<typeof commonOptions>;
  ep: ReturnType<typeof userInfoEndpoints>;
  mapUser: OAuth2ProviderOptions['mapUser'];
}

/** Custom OAuth2 providers; several clients of one third party may run side by side under different names. */
export const oauth2Provider: ProviderModule = {
  kind: 'oauth2',
  options: optionNames<OAuth2ProviderOptions>({
    ...COMMON_OAUTH2_OPTIONS,
    kind: true,
    name: true,
    endpoint: true,
    infoURL: true,
    mapUser: true,
  }),
  create(opts, deps: ProviderDeps): Provider {
    const config = parseOAuth2Options(opts);
    const spec = { ...config.common, name: config.name, kind: 'oauth2' };
    return createUserInfoProvider(spec, config.ep, (data, token) => mappedUser(config, deps, data, token), deps);
  },
};

/** Checks a custom provider's options; TypeErrors name the option. */
function parseOAuth2Options(opts: Record<string, unknown>): OAuth2Config {
  const name = opts.name;
  if (typeof name !== 'string' || !name) throw new TypeError('name is required');
  const endpoint = opts.endpoint as Record<string, unknown> | undefined;
  if (!endpoint || typeof endpoint !== 'object') throw new TypeError('endpoint { authURL, tokenURL } is required');
  const ep = userInfoEndpoints(endpoint, opts.infoURL);
  const mapUser = opts.mapUser;
  if (typeof mapUser !== 'function') throw new TypeError('mapUser(data, token) is required');
  return { name, common: commonOptions(opts, { scopes: [] }), ep, mapUser: mapUser as OAuth2Config['mapUser'] };
}

/** The user from the user-info JSON through the application's mapUser. */
async function mappedUser(
  { name, common, mapUser }: OAuth2Config,
  deps: ProviderDeps,
  data: Record<string, unknown>,
  token: OAuthToken,
): Promise<Identified> {
  let mapped: MappedUser;
  try {
    mapped = await mapUser(data, token);
  } catch (err) {
    throw providerError(name, 'bad_user_info', 'mapUser failed on the user info', err);
  }
  if (!mapped || typeof mapped !== 'object') throw providerError(name, 'bad_user_info', 'mapUser returned no user');
  const raw = rawFromMapped(mapped);
  // A mapper ported from the original may already return `<name>_<sha1>`; keep it rather than hash twice.
  const user = finishUser(name, raw, data, common.userAttributes, {
    rawId: raw.id.startsWith(`${name}_`) && HASHED.test(raw.id),
    userId: deps.userId,
  });
  if (typeof mapped.role === 'string' && mapped.role) user.role = mapped.role;
  return { user };
}
