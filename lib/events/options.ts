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
  /** `auditKey`: each audit line's HMAC key; undefined when lines carry the SHA-256 chain alone. */
  auditKey: string | undefined;
  /** A listener still running after this long is reported through `app.emit('error')`. */
  eventListenerTimeoutMs: number;
  /** OpenTelemetry: `true` requires `@opentelemetry/api`, `false` never loads it, unset uses it when installed. */
  telemetry: boolean | undefined;
}

export function readEventOptions(o: {
  audit?: unknown;
  auditKey?: unknown;
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
    auditKey: readAuditKey(o.auditKey, o.audit),
    eventListenerTimeoutMs: parseDuration((o.eventListenerTimeout ?? '5s') as Duration, 'eventListenerTimeout'),
    telemetry: o.telemetry,
  };
}

/** At least 32 characters: the key is what stops a forger from recomputing a line's mac. */
function readAuditKey(value: unknown, audit: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length < 32)
    throw new TypeError('authKoa: auditKey must be a string of at least 32 characters (authctl secret makes one)');
  if (audit === undefined || audit === null || audit === false)
    throw new TypeError('authKoa: auditKey signs the audit log: set audit (a file path or a stream) too');
  return value;
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
