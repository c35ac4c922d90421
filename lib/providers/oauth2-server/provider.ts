import type { Provider, ProviderDeps } from '../core/contract.js';
import { finishUser, text } from '../oauth2/mapping.js';
import { commonOptions, createFlowProvider, type Endpoints } from '../oauth2/flow.js';

/**
 * The provider end of a server a kind starts itself (`dev`, `server`): the OAuth2 flow against that
 * server, users taken from its user-info answer with their ids kept raw, and the server stopped when
 * the provider closes.
 */

export interface OwnServerProvider<S extends { close(): Promise<void> }> {
  name: string;
  kind: string;
  /** The client options commonOptions() checked. */
  common: ReturnType<typeof commonOptions>;
  /** The server starting; its failure is logged now and answered 503 at each login. */
  ready: Promise<S>;
  /** What the log calls the server ("dev OAuth2 server"). */
  what: string;
  endpoints(server: S): Required<Endpoints>;
  /** Refuses a user id by throwing (an AuthError). */
  checkId?(id: string): void;
}

/** Builds the provider; resolves once the server listens or its failure has been logged (`auth.ready`). */
export async function ownServerProvider<S extends { close(): Promise<void> }>(
  spec: OwnServerProvider<S>,
  deps: ProviderDeps,
): Promise<Provider> {
  const { name, ready } = spec;
  // Reported now and as a 503 at each login, never as an unhandled rejection.
  ready.catch((err: Error) => deps.logger.error(`${name}: ${spec.what} did not start: ${err.message}`));
  const endpoints = async (): Promise<Required<Endpoints>> => spec.endpoints(await ready);
  const provider = createFlowProvider(
    {
      ...spec.common,
      name,
      kind: spec.kind,
      endpoints,
      async identify(token, _hs, io) {
        const data = await io.userInfo((await endpoints()).infoURL, token);
        const id = text(data, 'id');
        spec.checkId?.(id);
        const user = finishUser(
          name,
          { id, name: text(data, 'name'), picture: text(data, 'picture'), email: text(data, 'email') },
          data,
          {},
          { rawId: true },
        );
        return { user };
      },
      async close() {
        const server = await ready.catch(() => undefined);
        await server?.close();
      },
    },
    deps,
  );
  await ready.catch(() => undefined);
  return provider;
}
