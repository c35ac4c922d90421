import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { chainedLine, chainTail, GENESIS, lineHash } from './audit-chain.js';
import { resumeHead, type HeadKeeper } from './audit-head-keeper.js';
import type { AuthEventBus } from './bus.js';
import type { EventsConfig, AuditStream } from './options.js';
import type { AuthEvent } from './types.js';

/** The audit sink: every event as one JSON line, in the order they happened, each chained to the one before. */
export interface AuditSink {
  /** Stops listening; closes the file it opened (a stream passed in belongs to its owner). */
  close(): Promise<void>;
}

/**
 * Subscribes to every event type (authkoa's and the features') and appends each event to the `audit` target as a
 * JSON line carrying `prev`, the SHA-256 of the line before, and with `auditKey` its `mac` (audit-chain.ts). A file
 * is opened for appending; its chain continues from its last line when the app starts again, and across the OS's
 * rotation (copytruncate), since the sink remembers the last line it wrote. Beside a file it keeps its head
 * (`<file>.head`: the last line's number and hash, MAC'd; audit-head-keeper.ts), which anchors the chain's end. One
 * process writes a file: two would interleave two chains. A write that fails is reported once through `report`, not
 * thrown: auditing never breaks a login.
 */
export function startAudit(
  bus: AuthEventBus,
  target: NonNullable<EventsConfig['audit']>,
  key: string | undefined,
  report: (err: Error) => void,
): AuditSink {
  const path = 'path' in target ? target.path : undefined;
  const file: WriteStream | undefined =
    path === undefined ? undefined : createWriteStream(path, { flags: 'a', mode: 0o640 });
  const out: AuditStream = file ?? (target as { stream: AuditStream }).stream;
  let failed = false;
  const fail = (err: Error) => {
    if (failed) return;
    failed = true;
    report(new Error(`authkoa: audit: cannot write: ${err.message}`, { cause: err }));
  };
  file?.on('error', fail);
  let prev = GENESIS;
  let head: HeadKeeper | undefined;
  const append = (event: AuthEvent) => {
    try {
      const line = chainedLine(event, prev, key);
      prev = lineHash(line);
      if (file && head) file.write(`${line}\n`, head.written(prev));
      else out.write(`${line}\n`);
    } catch (err) {
      fail(err as Error);
    }
  };
  // Until the file's last line is read, events wait in order: each line's prev is the one before it.
  let waiting: AuthEvent[] | undefined = path === undefined ? undefined : [];
  const write = (event: AuthEvent) => (waiting ? waiting.push(event) : append(event));
  const resumed =
    path === undefined
      ? Promise.resolve()
      : chainTail(path).then(
          async (tail) => {
            prev = tail.prev;
            // A line cut short by a crash is ended, so the next starts on a line of its own (a check names the cut).
            if (tail.cut) out.write('\n');
            head = await resumeHead(path, tail, key, report).catch((err: Error) => {
              report(new Error(`authkoa: audit: cannot resume its head: ${err.message}`, { cause: err }));
              return undefined;
            });
          },
          (err: Error) => fail(err),
        );
  void resumed.finally(() => {
    const queued = waiting ?? [];
    waiting = undefined;
    queued.forEach(append);
  });
  bus.onEvery(write);
  return {
    async close() {
      bus.offEvery(write);
      await resumed.catch(() => {});
      // Resolved once the descriptor is closed, not only flushed: close() means the file is let go.
      if (file && !file.closed) {
        const closed = once(file, 'close');
        file.end();
        await closed;
      }
      // The last lines' callbacks have run: the head naming the last one is being written.
      await head?.idle();
    },
  };
}
