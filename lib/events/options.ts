import { parseDuration, type Duration } from '../util/duration.js';

/** Something JSON lines can be appended to: a file stream, `process.stdout`, a socket, a PassThrough. */
export interface AuditStream {
  write(chunk: string): unknown;
}

/**
 * The `audit` option: a file path (appended to; rotation is the OS's, e.g. logrotate with copytruncate) or a stream.
 */
export type AuditOption = string | AuditStream;

/** The event options, checked. */
export interface EventsConfig {
  /** Where every event goes as one JSON line; undefined when off. */
  audit: { path: string } | { stream: AuditStream } | undefined;
  /** A listener still running after this long is reported through `app.emit('error')`. */
  eventListenerTimeoutMs: number;
  /** OpenTelemetry: `true` requires `@opentelemetry/api`, `false` never loads it, unset uses it when installed. */
  telemetry: boolean | undefined;
}

export function readEventOptions(o: {
  audit?: unknown;
  eventListenerTimeout?: unknown;
  telemetry?: unknown;
}): EventsConfig {
  if (o.telemetry !== undefined && typeof o.telemetry !== 'boolean')
    throw new TypeError(
      'authKoa: telemetry must be true (require @opentelemetry/api), false (never load it) ' +
        'or unset (use it when installed)',
    );
  return {
    audit: readAudit(o.audit),
    eventListenerTimeoutMs: parseDuration((o.eventListenerTimeout ?? '5s') as Duration, 'eventListenerTimeout'),
    telemetry: o.telemetry,
  };
}

function readAudit(value: unknown): EventsConfig['audit'] {
  if (value === undefined || value === null || value === false) return undefined;
  if (typeof value === 'string') {
    if (value.trim() === '')
      throw new TypeError('authKoa: audit must be a file path or a stream with write(), not an empty string');
    return { path: value };
  }
  if (typeof value === 'object' && typeof (value as AuditStream).write === 'function')
    return { stream: value as AuditStream };
  throw new TypeError('authKoa: audit must be a file path or a stream with write() (a file stream, process.stdout)');
}
