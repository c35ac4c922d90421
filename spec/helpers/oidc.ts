import Provider, { type ClientMetadata } from 'oidc-provider';
import { Client } from './http.js';
import { serve, type Served } from './http.js';

/**
 * A real OpenID Connect / OAuth2 authorization server (`oidc-provider`) on 127.0.0.1 for the login
 * tests. It listens first (so the issuer URL is known before the app is configured), then gets its
 * clients once the app's callback URLs are known.
 */
// oidc-provider announces its development defaults (and Node 20) on every start; the tests use them on purpose.
for (const level of ['warn', 'info', 'log'] as const) {
  const original = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider ')) return;
    original(...args);
  };
}

export interface OidcServer extends Served {
  issuer: string;
  /** Installs the clients; call once the app (and so its redirect URIs) exists. */
  setup(
    clients: ClientMetadata[],
    opts?: { pkceRequired?: boolean; claims?: (id: string) => Record<string, unknown> | undefined },
  ): void;
  /** Drives the dev login and consent pages like a browser; returns the redirect back to the client. */
  authorize(authorizeURL: URL | string, login: string): Promise<string>;
}

/** The claims every test account has: `alice` → "Alice Example", her picture and address. */
export function accountClaims(id: string) {
  return {
    sub: id,
    name: `${id[0]!.toUpperCase()}${id.slice(1)} Example`,
    preferred_username: id,
    picture: `https://img.example.test/${id}.png`,
    email: `${id}@example.test`,
    email_verified: true,
  };
}

export async function startOidcServer(): Promise<OidcServer> {
  let handler: ((req: any, res: any) => void) | undefined;
  const served = await serve((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  const issuer = served.url;
  const origin = served.url;

  async function authorize(authorizeURL: URL | string, login: string): Promise<string> {
    const browser = new Client(origin);
    let url = String(authorizeURL);
    for (let hop = 0; hop < 12; hop++) {
      const res = await browser.fetch(url);
      if (res.status >= 300 && res.status < 400) {
        url = new URL(res.headers.get('location')!, url).href;
        if (!url.startsWith(origin)) return url;
        continue;
      }
      const html = await res.text();
      const action = /action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`oidc-provider answered ${res.status} without a form: ${html.slice(0, 300)}`);
      const form: Record<string, string> = html.includes('name="login"')
        ? { prompt: 'login', login, password: 'any' }
        : { prompt: 'consent' };
      const post = await browser.fetch(new URL(action, url).href, { method: 'POST', form });
      url = new URL(post.headers.get('location')!, url).href;
      if (!url.startsWith(origin)) return url;
    }
    throw new Error('oidc-provider login did not come back to the client');
  }

  return {
    ...served,
    issuer,
    setup(clients, opts = {}) {
      const provider = new Provider(issuer, {
        clients,
        findAccount: async (_ctx, id) => ({
          accountId: id,
          claims: async () => ({ ...accountClaims(id), ...opts.claims?.(id), sub: id }),
        }),
        claims: {
          openid: ['sub'],
          profile: ['name', 'preferred_username', 'picture'],
          email: ['email', 'email_verified'],
        },
        features: { devInteractions: { enabled: true } },
        pkce: { required: () => opts.pkceRequired ?? true },
        cookies: { keys: ['oidc-test-cookie-key'] },
      });
      // Quiet: the dev-only warnings are expected in tests.
      provider.on('server_error', () => {});
      handler = provider.callback();
    },
    authorize,
  };
}
