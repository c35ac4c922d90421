/**
 * Polls `probe` until it is true: for waiting on something outside the test's control (a client's reconnect and its
 * backoff, a server coming up), never standing in for a clock. The deadline is the safety net, well inside ava's
 * timeout; the error names what was awaited.
 */
export async function until(
  probe: () => boolean | Promise<boolean>,
  what: string,
  deadlineMs = 45_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
