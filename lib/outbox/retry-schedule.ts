/**
 * When a failed delivery from the outbox is tried again (a webhook's, docs/events.md#webhooks, or a Shared Signals
 * push): after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h,
 * 6 h, 12 h and 24 h, each stretched or shrunk by up to a fifth at random so that receivers coming back are not hit
 * by every sender at once. Eleven tries in all, the last about 48 hours after the first (at most 58 with the jitter:
 * within 3 days); after it the message is a dead letter.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
];

/** Tries in all: the first and one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** The wait after the `attempts`-th failed try (1-based), jittered by `random` (0 ≤ random < 1); undefined: no more. */
export function retryDelay(attempts: number, random: number): number | undefined {
  const base = RETRY_DELAYS_MS[attempts - 1];
  return base === undefined ? undefined : Math.round(base * (0.8 + 0.4 * random));
}
