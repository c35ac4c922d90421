import type { Provider, ProviderDeps, ProviderModule } from './core/contract.js';
import type { User } from '../user.js';
import { finishUser, type RawUser } from './oauth2/mapping.js';
import { commonOptions, createFlowProvider, endpointURL, providerError, type CommonOAuth2Options, type OAuthToken } from './oauth2/flow.js';
import { optionNames } from '../util/options.js';
import { COMMON_OAUTH2_OPTIONS } from './oauth2/options.js';

/** What a custom `mapUser` returns: the provider's own id (hashed by authkoa), name, picture, … */
export type MappedUser = Partial<Omit<User, 'id'>> & { id: string | number };

/** Options of a `kind: 'oauth2'` provider: any third-party OAuth2 server (reference §5.3). */
export interface OAuth2ProviderOptions extends CommonOAuth2Options {
  kind: 'oauth2';
  /** Provider name; user ids become `<name>_<sha1(id)>`. Must not be a built-in's name. */
  name: string;
  endpoint: { authURL: string; tokenURL: string };
  /** User-info URL, read with the access token as a bearer. */
  infoURL: string;
  /** Turns the user-info JSON (and the provider token) into the user. */
  mapUser: (data: Record<string, unknown>, token: OAuthToken) => MappedUser | Promise<MappedUser>;
}

const HASHED = /^[A-Za-z0-9._~-]+_[0-9a-f]{40}$/;

/** Custom OAuth2 providers; several clients of one third party may run side by side under different names. */
export const oauth2Provider: ProviderModule = {
  kind: 'oauth2',
  options: optionNames<OAuth2ProviderOptions>({ ...COMMON_OAUTH2_OPTIONS, kind: true, name: true, endpoint: true, infoURL: true, mapUser: true }),
  create(opts, deps: ProviderDeps): Provider {
    const name = opts.name;
    if (typeof name !== 'string' || !name) throw new TypeError('name is required');
    const endpoint = opts.endpoint as Record<string, unknown> | undefined;
    if (!endpoint || typeof endpoint !== 'object') throw new TypeError('endpoint { authURL, tokenURL } is required');
    const ep = {
      authURL: endpointURL(endpoint.authURL, 'endpoint.authURL'),
      tokenURL: endpointURL(endpoint.tokenURL, 'endpoint.tokenURL'),
      infoURL: endpointURL(opts.infoURL, 'infoURL'),
    };
    const mapUser = opts.mapUser;
    if (typeof mapUser !== 'function') throw new TypeError('mapUser(data, token) is required');
    const common = commonOptions(opts, { scopes: [] });
    return createFlowProvider(
      {
        ...common,
        name,
        kind: 'oauth2',
        endpoints: async () => ep,
        async identify(token, _hs, io) {
          const data = await io.userInfo(ep.infoURL, token);
          let mapped: MappedUser;
          try {
            mapped = await (mapUser as OAuth2ProviderOptions['mapUser'])(data, token);
          } catch (err) {
            throw providerError(name, 502, 'bad_user_info', 'mapUser failed on the user info', err);
          }
          if (!mapped || typeof mapped !== 'object') throw providerError(name, 502, 'bad_user_info', 'mapUser returned no user');
          const id = typeof mapped.id === 'number' ? String(mapped.id) : mapped.id;
          const raw: RawUser = {
            id: typeof id === 'string' ? id : '',
            name: typeof mapped.name === 'string' ? mapped.name : undefined,
            picture: typeof mapped.picture === 'string' ? mapped.picture : undefined,
            email: typeof mapped.email === 'string' ? mapped.email : undefined,
            attrs: mapped.attrs,
          };
          // A mapper ported from the original may already return `<name>_<sha1>`; keep it rather than hash twice.
          const user = finishUser(name, raw, data, common.userAttributes, { rawId: raw.id.startsWith(`${name}_`) && HASHED.test(raw.id), userId: deps.userId });
          if (typeof mapped.role === 'string' && mapped.role) user.role = mapped.role;
          return { user };
        },
      },
      deps,
    );
  },
};
