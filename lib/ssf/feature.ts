import type { FeatureCapabilities } from '../features/capabilities.js';
import type { FeatureModule } from '../features/contract.js';
import { SSF_ERRORS } from './errors.js';
import { SSF_EVENTS } from './events.js';
import type { SsfConfig } from './options.js';

/**
 * What the transmitter asks of the instance (index.ts `needs`): the `signing` key's signer (readSsfOptions refuses
 * `ssf` without it) and the `issuer`, every event, the tracing of its pushes.
 */
export const SSF_NEEDS = ['signer', 'issuer', 'eventTap', 'tracing'] as const;
export type SsfCapabilities = Pick<FeatureCapabilities, (typeof SSF_NEEDS)[number]>;

/**
 * The Shared Signals transmitter (docs/ssf.md) as a feature: `<authRoutePath>/.well-known/ssf-configuration`, the
 * receivers' streams and poll endpoint under `/ssf`; at start it taps every event and starts this process's push
 * worker; `admin` lists and replays the SETs a push receiver never took. Its code loads only when `ssf` is set.
 */
export function ssfFeature(config: SsfConfig, has: SsfCapabilities): FeatureModule {
  return {
    name: 'ssf',
    prefix: '/ssf',
    wellKnown: ['ssf-configuration'],
    errors: SSF_ERRORS,
    events: SSF_EVENTS,
    async create(_options, context) {
      const [{ default: Router }, { createTransmitter }, { mountSsfRoutes }] = await Promise.all([
        import('@koa/router'),
        import('./service.js'),
        import('./routes.js'),
      ]);
      const tx = createTransmitter(config, {
        bus: has.eventTap,
        stateStore: context.stateStore,
        clock: context.clock,
        logger: context.logger,
        signer: has.signer!,
        issuer: has.issuer,
        tracing: has.tracing,
        emit: (type, fields) => context.emit(type, fields),
      });
      const base = context.url + context.authRoutePath;
      const urls = {
        issuer: has.issuer,
        jwks: `${base}/.well-known/jwks.json`,
        configuration: `${base}/ssf/stream`,
        poll: `${base}/ssf/poll`,
      };
      const router = new Router({ prefix: context.authRoutePath });
      mountSsfRoutes(router, {
        config,
        urls,
        queue: tx.queue,
        unauthorized: (message) => context.error('ssf_unauthorized', message),
        refused: (r, jti, event, reason) =>
          context.emit('ssf_delivery_failed', { receiver: r.id, jti, event, attempt: 0, reason, dead: true }),
      });
      return {
        routes: router.routes() as never,
        openapi: async () => (await import('./openapi.js')).ssfOpenAPI(),
        admin: tx.admin,
        start: () => Promise.resolve(tx.start()),
        close: () => tx.close(),
      };
    },
  };
}
