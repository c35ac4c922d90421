import type { AuthEventBus } from '../events/bus.js';
import type { FeatureModule } from '../features/contract.js';
import type { Logger } from '../logger.js';
import type { Tracing } from '../telemetry/types.js';
import { WEBHOOK_EVENTS } from './events.js';
import type { WebhooksConfig } from './options.js';

/** The instance's parts the webhooks are made of, as the feature table hands them over. */
export interface WebhooksFeatureParts {
  clock: () => number;
  logger: Logger;
  /** The instance's bus: every event, whoever emits it. */
  events: Pick<AuthEventBus, 'tap' | 'untap'>;
  core: { telemetry: Tracing };
}

/**
 * The webhooks (docs/events.md#webhooks) as a feature: at start it subscribes to every event and starts this
 * process's delivery worker over the outbox in the state store; `admin` lists and replays dead letters. Its code
 * loads only when `webhooks` is set.
 */
export function webhooksFeature(config: WebhooksConfig, p: WebhooksFeatureParts): FeatureModule {
  return {
    name: 'webhooks',
    events: WEBHOOK_EVENTS,
    async create(_options, context) {
      const { createWebhooks } = await import('./service.js');
      const hooks = createWebhooks(config, {
        bus: p.events,
        stateStore: context.stateStore,
        clock: p.clock,
        logger: p.logger,
        tracing: p.core.telemetry,
        emit: (type, fields) => context.emit(type, fields),
      });
      return {
        admin: hooks.admin,
        start: () => Promise.resolve(hooks.start()),
        close: () => hooks.close(),
      };
    },
  };
}
