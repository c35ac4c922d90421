import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { AuthEventBus } from './bus.js';
import type { EventsConfig, AuditStream } from './options.js';
import type { AuthEvent } from './types.js';

/** The audit sink: every event as one JSON line, in the order they happened. */
export interface AuditSink {
  /** Stops listening; closes the file it opened (a stream passed in belongs to its owner). */
  close(): Promise<void>;
}

/**
 * Subscribes to every event type (authkoa's and the features') and appends each event to the `audit`
 * target as a JSON line. A file is opened for appending, so several processes may share it line by line
 * (each line is one write() under PIPE_BUF on local files) and the OS's log rotation can move it: use
 * copytruncate, or restart.
 * A write that fails is reported once through `report`, not thrown: auditing never breaks a login.
 */
export function startAudit(
  bus: AuthEventBus,
  target: NonNullable<EventsConfig['audit']>,
  report: (err: Error) => void,
): AuditSink {
  const file: WriteStream | undefined =
    'path' in target ? createWriteStream(target.path, { flags: 'a', mode: 0o640 }) : undefined;
  const out: AuditStream = file ?? (target as { stream: AuditStream }).stream;
  let failed = false;
  const fail = (err: Error) => {
    if (failed) return;
    failed = true;
    report(new Error(`authkoa: audit: cannot write: ${err.message}`, { cause: err }));
  };
  file?.on('error', fail);
  const write = (event: AuthEvent) => {
    try {
      out.write(`${JSON.stringify(event)}\n`);
    } catch (err) {
      fail(err as Error);
    }
  };
  bus.onEvery(write);
  return {
    async close() {
      bus.offEvery(write);
      // Resolved once the descriptor is closed, not only flushed: close() means the file is let go.
      if (file && !file.closed) {
        const closed = once(file, 'close');
        file.end();
        await closed;
      }
    },
  };
}
