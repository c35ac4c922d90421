import { isMissingPackage, MissingPackageError } from '../util/optional.js';
import type { AuthEventBus } from '../events/bus.js';
import { noTracing, type ClientCall, type SpanAttributes, type Tracing } from './types.js';

/**
 * The OpenTelemetry of one authKoa instance: a Tracing every module holds from the start, which records
 * nothing until start() found `@opentelemetry/api` (an optional peer) and the `telemetry` option allows
 * it. Until then, and for good when the package is absent, each call is one property read and a direct
 * call: nothing of OpenTelemetry is loaded. Spans and metrics go to whatever SDK the application
 * registered with the API (`NodeSDK`, a `MeterProvider`…); without one the API's no-ops run.
 */
export class InstanceTelemetry implements Tracing {
  #impl: Tracing = noTracing;

  get on(): boolean {
    return this.#impl.on;
  }

  span<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T> {
    return this.#impl.span(name, attributes, fn);
  }

  client<T>(call: ClientCall, fn: (status: (code: number) => void) => Promise<T>): Promise<T> {
    return this.#impl.client(call, fn);
  }

  verified(cacheHit: boolean, accepted: boolean, source: string): void {
    this.#impl.verified(cacheHit, accepted, source);
  }

  storeOperation(operation: string, ms: number, failed: boolean): void {
    this.#impl.storeOperation(operation, ms, failed);
  }

  /**
   * Loads the OpenTelemetry side when `option` allows: `false` never, `true` always (a missing package
   * is then a start-up error naming it), unset when `@opentelemetry/api` is installed. Login, failure,
   * lock-out and refresh counts come from the instance's events.
   */
  async start(option: boolean | undefined, events: AuthEventBus, version?: string): Promise<void> {
    if (option === false) return;
    let otel: typeof import('./otel.js');
    try {
      otel = await import('./otel.js');
    } catch (err) {
      if (!isMissingPackage(err, '@opentelemetry/api')) throw err;
      if (option === true) throw new MissingPackageError('@opentelemetry/api', 'telemetry');
      return;
    }
    this.#impl = otel.otelTracing(events, version);
  }
}
