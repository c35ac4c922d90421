import type { AuthEventBus } from '../events/bus.js';
import type { FeatureModule } from '../features/contract.js';
import type { Logger } from '../logger.js';
import type { SigningConfig } from '../session/signing.js';
import type { Tracing } from '../telemetry/types.js';
import { SSF_ERRORS } from './errors.js';
import { SSF_EVENTS } from './events.js';
import type { SsfConfig } from './options.js';

/** The instance's parts the transmitter is made of, as the feature table hands them over. */
export interface SsfFeatureParts {
  /** The `signing` option, checked (readSsfOptions refuses `ssf` without it). */
  signing: SigningConfig | undefined;
  /** The `issuer` option: the SETs' `iss`. */
  issuer: string;
  clock: () => number;
  logger: Logger;
  /** The instance's bus: every event, whoever emits it. */
  events: Pick<AuthEventBus, 'tap' | 'untap'>;
  core: { telemetry: Tracing };
}

/**
 * The Shared Signals transmitter (docs/ssf.md) as a feature: `<authRoutePath>/.well-known/ssf-configuration`, the
 * receivers' streams and poll endpoint under `/ssf`; at start it taps every event and starts this process's push
 * worker; `admin` lists and replays the SETs a push receiver never took. Its code loads only when `ssf` is set.
 */
export function ssfFeature(config: SsfConfig, p: SsfFeatureParts): FeatureModule {
  return {
    name: 'ssf',
    prefix: '/ssf',
    wellKnown: ['ssf-configuration'],
    errors: SSF_ERRORS,
    events: SSF_EVENTS,
    async create(_options, context) {
      const [{ default: Router }, { createTransmitter }, { mountSsfRoutes }, { signerOf }] = await Promise.all([
        import('@koa/router'),
        import('./service.js'),
        import('./routes.js'),
        import('../session/signer.js'),
      ]);
      const tx = createTransmitter(config, {
        bus: p.events,
        stateStore: context.stateStore,
        clock: p.clock,
        logger: p.logger,
        signer: signerOf(p.signing!),
        issuer: p.issuer,
        tracing: p.core.telemetry,
        emit: (type, fields) => context.emit(type, fields),
      });
      const base = context.url + context.authRoutePath;
      const urls = {
        issuer: p.issuer,
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
