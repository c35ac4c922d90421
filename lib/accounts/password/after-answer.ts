import { AuthError } from '../../errors.js';
import type { Logger } from '../../logger.js';

/**
 * Work a route starts once its answer is settled and does not wait for: a mail whose sending time must not show
 * in the answer's (a login's new link, a reset link), or whose failure must not undo a change already made (the
 * notice of a new password). The provider's close waits for what still runs, so no message is cut off.
 */
export interface AfterAnswer {
  /** Starts `work`; a rejection is logged as a warning naming `what` (a failed send is logged by sendMessage). */
  run(what: string, work: () => Promise<void>): void;
  /** Resolves once everything started, and anything it started in turn, has settled. */
  settled(): Promise<void>;
}

export function afterAnswer(logger: Logger, provider: string): AfterAnswer {
  const running = new Set<Promise<void>>();
  return {
    run(what, work) {
      const done: Promise<void> = work()
        .catch((err: unknown) => {
          if (err instanceof AuthError && err.code === 'sender_failed') return; // logged where it failed
          logger.warn(`password ${provider}: ${what} failed: ${(err as Error)?.message}`, {
            provider,
            code: 'after_answer_failed',
          });
        })
        .finally(() => running.delete(done));
      running.add(done);
    },
    async settled() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
