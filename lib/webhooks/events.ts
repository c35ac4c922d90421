import type { AuthEventBase } from '../events/types.js';

/**
 * The webhooks' own events, declared by the feature and joined to the instance's event map by declaration merging.
 * They name the endpoint by its URL's origin and path (never its secret or query) and are never sent to a webhook
 * themselves: a receiver that is down would otherwise be sent news of its own failures.
 */

/** A delivery failed: tried again later, or (`dead`) a dead letter after its last try. */
export interface WebhookFailedEvent extends AuthEventBase {
  type: 'webhook_failed';
  endpoint: string;
  messageId: string;
  eventType: string;
  attempt: number;
  reason: string;
  dead: boolean;
}

/** An endpoint answered 410 Gone: nothing more is sent to it until it is enabled again. */
export interface WebhookDisabledEvent extends AuthEventBase {
  type: 'webhook_disabled';
  endpoint: string;
}

declare module '../events/types.js' {
  interface AuthEventMap {
    webhook_failed: WebhookFailedEvent;
    webhook_disabled: WebhookDisabledEvent;
  }
}

export const WEBHOOK_EVENTS = ['webhook_failed', 'webhook_disabled'] as const;
