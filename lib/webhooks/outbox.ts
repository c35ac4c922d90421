import type { StateStore } from '../state/types.js';
import { stateOutbox, type Outbox } from '../outbox/state-outbox.js';

/** The namespace of the webhooks' outbox (`wh`, `wh-msg`, `wh-dead`): where the apps and `authctl webhooks` find it. */
export const WEBHOOKS_OUTBOX = 'wh';

/** The webhooks' outbox: the shared outbox (lib/outbox/) in namespaces of its own; `random` draws the retry jitter. */
export function webhookOutbox(store: StateStore, clock: () => number, random: () => number = Math.random): Outbox {
  return stateOutbox(store, clock, WEBHOOKS_OUTBOX, random);
}
