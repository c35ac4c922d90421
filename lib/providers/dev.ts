import type { Logger } from '../logger.js';
import type { Provider, ProviderDeps, ProviderModule } from './core/contract.js';
import {
  devEndpoints,
  startDevOAuthServer,
  refuseInProduction,
  type DevOAuthServerOptions,
} from './oauth2-server/dev.js';
import { commonOptions } from './oauth2/flow.js';
import { ownServerProvider } from './oauth2-server/provider.js';
import { optionNames } from '../util/options.js';

export { startDevOAuthServer, type DevOAuthServer, type DevOAuthServerOptions } from './oauth2-server/dev.js';

/** Options of the `dev` provider (`{ kind: 'dev' }` or `{ name: 'dev' }`). Development only. */
export interface DevProviderOptions {
  kind?: 'dev';
  /** Provider name (default `dev`). User ids are the raw user names, as in the original. */
  name?: string;
  /** Interface of the dev server (default 127.0.0.1). */
  host?: string;
  /** Port of the dev server (default 8084; 0 picks a free one). */
  port?: number;
  /** Gives users `email: <name>@<emailDomain>`. */
  emailDomain?: string;
  /** Makes the email from the name; wins over emailDomain. */
  emailFunc?: (name: string) => string;
  /** Deadline for calls to the dev server in ms (default 10 000). */
  timeout?: number;
}

/**
 * The dev provider starts its own server when created (listening is asynchronous; login waits for
 * it) and stops it in close(). It refuses to exist under NODE_ENV=production, so a forgotten
 * `{ kind: 'dev' }` fails the deployment at start-up rather than opening it to everyone.
 */
export const devProvider: ProviderModule = {
  kind: 'dev',
  options: optionNames<DevProviderOptions>({
    kind: true,
    name: true,
    host: true,
    port: true,
    emailDomain: true,
    emailFunc: true,
    timeout: true,
  }),
  async create(opts, deps: ProviderDeps): Promise<Provider> {
    refuseInProduction();
    const name = opts.name ?? 'dev';
    if (typeof name !== 'string' || !name) throw new TypeError('name must be a non-empty string');
    const host = opts.host ?? '127.0.0.1';
    if (typeof host !== 'string' || !host) throw new TypeError('host must be a non-empty string');
    const port = opts.port ?? 8084;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535)
      throw new TypeError('port must be an integer 0..65535');
    if (
      opts.emailDomain !== undefined &&
      (typeof opts.emailDomain !== 'string' || !/^[A-Za-z0-9.-]+$/.test(opts.emailDomain))
    ) {
      throw new TypeError('emailDomain must be a domain name');
    }
    if (opts.emailFunc !== undefined && typeof opts.emailFunc !== 'function')
      throw new TypeError('emailFunc must be a function (name) => string');
    const common = commonOptions(
      { cid: 'authkoa-dev', csecret: 'dev-secret', timeout: opts.timeout },
      { scopes: ['user:email'] },
    );
    const ready = startDevOAuthServer({
      host,
      port,
      emailDomain: opts.emailDomain,
      emailFunc: opts.emailFunc as DevOAuthServerOptions['emailFunc'],
      // The server answers only this application's callbacks, wherever it is mounted.
      redirectOrigins: [new URL(deps.url).origin],
      // Its warning (anyone can log in through this server) reaches stderr without a logger too:
      // the default logger prints warnings.
      logger: deps.logger,
    });
    return ownServerProvider(
      { name, kind: 'dev', common, ready, what: 'dev OAuth2 server', endpoints: (server) => devEndpoints(server.url) },
      deps,
    );
  },
};

/**
 * Runs the dev server alone until SIGINT or SIGTERM (what `authctl dev-oauth` does). `onListening`
 * receives the base URL once the server accepts connections.
 */
export async function runDevOAuthServer(
  opts: DevOAuthServerOptions & { onListening?: (url: string) => void; logger?: Logger },
): Promise<void> {
  const server = await startDevOAuthServer(opts);
  opts.onListening?.(server.url);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
}
