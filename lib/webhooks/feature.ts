import type { FeatureCapabilities } from '../features/capabilities.js';
import type { FeatureModule } from '../features/contract.js';
import { WEBHOOK_EVENTS } from './events.js';
import type { WebhooksConfig } from './options.js';

/** What the webhooks ask of the instance (index.ts `needs`): every event, and the tracing of their sends. */
export const WEBHOOKS_NEEDS = ['eventTap', 'tracing'] as const;
export type WebhooksCapabilities = Pick<FeatureCapabilities, (typeof WEBHOOKS_NEEDS)[number]>;

/**
 * The webhooks (docs/events.md#webhooks) as a feature: at start it subscribes to every event and starts this
 * process's delivery worker over the outbox in the state store; `admin` lists and replays dead letters. Its code
 * loads only when `webhooks` is set.
 */
export function webhooksFeature(config: WebhooksConfig, has: WebhooksCapabilities): FeatureModule {
  return {
    name: 'webhooks',
    events: WEBHOOK_EVENTS,
    async create(_options, context) {
      const { createWebhooks } = await import('./service.js');
      const hooks = createWebhooks(config, {
        bus: has.eventTap,
        stateStore: context.stateStore,
        clock: context.clock,
        logger: context.logger,
        tracing: has.tracing,
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
