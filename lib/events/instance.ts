import type { Context } from 'koa';
import type { Logger } from '../logger.js';
import { emitOnApp } from '../errors.js';
import { startAudit } from './audit.js';
import { AuthEventBus } from './bus.js';
import type { EventsConfig } from './options.js';
import { FailedLogins } from './session-events.js';

/** An instance's events: the bus its modules emit on, the audit sink when configured, and the failures already told. */
export interface InstanceEvents {
  bus: AuthEventBus;
  failed: FailedLogins;
  close(): Promise<void>;
}

/**
 * The events of one authKoa instance. A listener's failure from a request goes to Koa's
 * `app.emit('error', err, ctx)` (the app's own error reporting); one from outside any request (an
 * operator's revocation from code) to the logger.
 */
export function createEvents(
  o: EventsConfig & { logger: Logger; clock: () => number },
  featureTypes: readonly string[] = [],
): InstanceEvents {
  // From a timer: an 'error' listener that throws must not end the process (emitOnApp catches it).
  const report = (err: Error, ctx: Context | undefined) =>
    ctx ? emitOnApp(ctx, err) : o.logger.error(err.message, { code: 'event_listener_failed' });
  const bus = new AuthEventBus(report, o.eventListenerTimeoutMs, o.clock, featureTypes);
  const audit = o.audit
    ? startAudit(bus, o.audit, o.auditKey, (err) => o.logger.error(err.message, { code: 'audit_failed' }))
    : undefined;
  return { bus, failed: new FailedLogins(bus), close: async () => audit?.close() };
}
