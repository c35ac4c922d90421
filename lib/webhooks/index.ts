import { builtIn } from '../features/built-in.js';
import { WEBHOOK_EVENTS } from './events.js';
import { WEBHOOKS_NEEDS, webhooksFeature } from './feature.js';
import { readWebhooksOptions, type WebhooksConfig } from './options.js';

/** The webhooks, with the `webhooks` option: the feature table's row (core/features.ts). */
export const webhooks = builtIn({
  name: 'webhooks',
  option: 'webhooks',
  read: (input, context): WebhooksConfig | undefined => readWebhooksOptions(input, context),
  events: WEBHOOK_EVENTS,
  needs: WEBHOOKS_NEEDS,
  module: (config: WebhooksConfig, has) => webhooksFeature(config, has),
});
