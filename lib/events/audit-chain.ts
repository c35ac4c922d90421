import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { open } from 'node:fs/promises';

/**
 * The audit log's chain (docs/events.md#a-tamper-evident-audit-log): each line carries `prev`, the SHA-256 of the
 * line before it (across a rotation too, since the writer remembers it), and with an `auditKey` `mac`, an
 * HMAC-SHA256 over the line with its `prev`. Anyone can check the chain; only the key's holder can forge a line, so
 * a line edited and the chain recomputed after it still fails its `mac`. Checking reads the lines in the order given
 * and names the first one that does not hold.
 */

/** The `prev` of a chain's first line: nothing came before it. */
export const GENESIS = '0'.repeat(64);

const MAC_SUFFIX = /,"mac":"([0-9a-f]{64})"\}$/;
const HEX64 = /^[0-9a-f]{64}$/;

/** The SHA-256 (hex) of a line as written, without its newline: the next line's `prev`. */
export function lineHash(line: string): string {
  return createHash('sha256').update(line).digest('hex');
}

function macOf(key: string | Buffer, body: string): string {
  return createHmac('sha256', key).update(body).digest('hex');
}

/**
 * An event as a chained line (without its newline): the event's JSON with `prev` last, then `mac` over all that
 * when there is a key. The mac is the line's last field, so a checker recovers the text it covers exactly.
 */
export function chainedLine(event: object, prev: string, key?: string | Buffer): string {
  const body = JSON.stringify({ ...event, prev });
  return key === undefined ? body : `${body.slice(0, -1)},"mac":"${macOf(key, body)}"}`;
}

/** One line to check, and where it was read. */
export interface AuditLine {
  file: string;
  /** 1-based. */
  line: number;
  text: string;
}

/** What a check found: the lines read, and the first that does not hold, with why. */
export interface ChainCheck {
  lines: number;
  bad?: { file: string; line: number; reason: string };
}

/** Which checks run: both by default. Turning one off is for the tests that show what it catches. */
export interface ChainRules {
  chain?: boolean;
  mac?: boolean;
}

/**
 * Checks lines in order: each a JSON object whose `prev` is the SHA-256 of the line before it (the first line's is
 * taken as given: the files before it may be gone), and, with `key`, whose `mac` holds.
 */
export function checkChain(lines: Iterable<AuditLine>, key?: string | Buffer, rules: ChainRules = {}): ChainCheck {
  let count = 0;
  let before: string | undefined;
  for (const l of lines) {
    count++;
    const reason = lineProblem(l.text, before, key, rules);
    if (reason) return { lines: count, bad: { file: l.file, line: l.line, reason } };
    before = lineHash(l.text);
  }
  return { lines: count };
}

/** Why one line does not hold, or undefined. */
function lineProblem(
  text: string,
  before: string | undefined,
  key: string | Buffer | undefined,
  rules: ChainRules,
): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'not a whole JSON line (cut, or edited)';
  }
  const prev = (parsed as { prev?: unknown } | null)?.prev;
  if (typeof parsed !== 'object' || parsed === null || typeof prev !== 'string' || !HEX64.test(prev))
    return 'no chain: the line has no prev';
  if (rules.chain !== false && before !== undefined && prev !== before)
    return 'prev is not the SHA-256 of the line before: a line was removed, inserted or moved here';
  if (key === undefined || rules.mac === false) return undefined;
  const mac = MAC_SUFFIX.exec(text);
  if (!mac) return 'no mac, and a key was given';
  const body = `${text.slice(0, mac.index)}}`;
  const expected = Buffer.from(macOf(key, body), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(mac[1], 'hex'))) return 'mac does not hold: the line was edited';
  return undefined;
}

/**
 * What a file's chain continues from: the SHA-256 of its last whole line, GENESIS for an empty or missing file.
 * `cut` is true when the file ends in a partial line (a write cut short): the writer ends it before going on, and a
 * check names it.
 */
export async function chainTail(path: string): Promise<{ prev: string; cut: boolean }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { prev: GENESIS, cut: false };
    throw err;
  }
  try {
    const { size } = await handle.stat();
    // A line is an event's JSON: far under 64 kB; read back until a whole one is in view.
    for (let span = Math.min(size, 4096); ; span = Math.min(size, span * 4)) {
      const buf = Buffer.alloc(span);
      await handle.read(buf, 0, span, size - span);
      const text = buf.toString('utf8');
      const cut = text.length > 0 && !text.endsWith('\n');
      const lines = text.split('\n').filter((l, i, all) => l !== '' && (i < all.length - 1 || !cut));
      const whole = span === size ? lines : lines.slice(1);
      if (whole.length > 0) return { prev: lineHash(whole[whole.length - 1]), cut };
      if (span === size) return { prev: GENESIS, cut };
    }
  } finally {
    await handle.close();
  }
}
