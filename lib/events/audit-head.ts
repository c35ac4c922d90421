import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { lineHash, type AuditLine } from './audit-chain.js';

/**
 * The audit log's head (docs/events.md#the-head-where-the-log-ends): the chain says nothing of lines cut from its
 * end, so the writer keeps, beside the log (`<file>.head`), the hash of the last line it wrote and that line's
 * number, with `auditKey` MAC'd. A check then tells a log cut at its end from one the app simply stopped writing;
 * only the key's holder can move the head back to match a cut.
 */

/**
 * What the head file holds: the last line's number (counted from the start of the file the writer began on), its
 * SHA-256, and with a key the MAC over both.
 */
export interface AuditHead {
  count: number;
  hash: string;
  mac?: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Where a log's head is kept. */
export function headPathOf(logPath: string): string {
  return `${logPath}.head`;
}

/** The MAC of a head: domain-separated from the lines' (a JSON object), so no line's mac is a head's. */
function headMac(key: string | Buffer, count: number, hash: string): string {
  return createHmac('sha256', key).update(`authkoa audit head\n${count}\n${hash}`).digest('hex');
}

/** A head naming line `count`, whose SHA-256 is `hash`; MAC'd when there is a key. */
export function signedHead(count: number, hash: string, key?: string | Buffer): AuditHead {
  return key === undefined ? { count, hash } : { count, hash, mac: headMac(key, count, hash) };
}

/** Whether the head's mac holds under `key` (false without a mac). */
export function headMacHolds(head: AuditHead, key: string | Buffer): boolean {
  if (head.mac === undefined) return false;
  return timingSafeEqual(Buffer.from(headMac(key, head.count, head.hash), 'hex'), Buffer.from(head.mac, 'hex'));
}

/** Replaces the head whole: a temporary file renamed over it, so a reader (or a crash) never sees half a head. */
export async function writeHead(path: string, head: AuditHead): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFile(tmp, `${JSON.stringify(head)}\n`, { mode: 0o640 });
  await rename(tmp, path);
}

/** The head at `path`, undefined when there is none; an Error saying so when it is not a head. */
export async function readHead(path: string): Promise<AuditHead | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let parsed: Partial<Record<keyof AuditHead, unknown>> | null = null;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // named below
  }
  const { count, hash, mac }: Partial<Record<keyof AuditHead, unknown>> = parsed ?? {};
  if (
    typeof count !== 'number' ||
    !Number.isSafeInteger(count) ||
    count < 1 ||
    typeof hash !== 'string' ||
    !HEX64.test(hash) ||
    (mac !== undefined && (typeof mac !== 'string' || !HEX64.test(mac)))
  )
    throw new Error(`${path} is not an audit head ({ "count", "hash", "mac" }): it was edited or is another file`);
  return mac === undefined ? { count, hash } : { count, hash, mac };
}

/** What a head says of the lines read: the first thing wrong with it, or notes on what it cannot vouch for. */
export interface HeadCheck {
  problem?: string;
  notes: string[];
}

/**
 * Checks `lines` (every line of the files given, in order, the current file last) against their head: with `key`,
 * its mac must hold; the line it names must be in them. A head line missing means lines were cut from the end (the
 * chain shows no cut there). Lines after the head's are lines written after its last update: a note, not a fault.
 */
export function checkHead(head: AuditHead, lines: readonly AuditLine[], key?: string | Buffer): HeadCheck {
  const notes: string[] = [];
  if (key !== undefined) {
    if (head.mac === undefined) return { problem: 'the head has no mac, and a key was given: it was replaced', notes };
    if (!headMacHolds(head, key)) return { problem: 'the head’s mac does not hold: it was forged or edited', notes };
  } else {
    notes.push(
      head.mac === undefined
        ? 'the head is unauthenticated (written without auditKey): whoever can write it can move it'
        : 'the head’s mac was not checked (no key given)',
    );
  }
  let at = -1;
  for (let i = lines.length - 1; i >= 0 && at < 0; i--) if (lineHash(lines[i].text) === head.hash) at = i;
  if (at < 0) {
    const problem =
      lines.length < head.count
        ? `the log ends at line ${lines.length} but its head says ${head.count}: lines were removed from its end`
        : `the head’s line ${head.count} is not in the log: its end was removed or replaced`;
    return { problem, notes };
  }
  const after = lines.length - 1 - at;
  if (after > 0)
    notes.push(`${after} line(s) after the head’s: written after its last update (the app stopped before it)`);
  if (at + 1 < head.count)
    notes.push(
      `the head counts ${head.count} lines to its own, the files given ${at + 1}: the others were rotated away`,
    );
  return { notes };
}

/**
 * How many lines a file holds as a reader counts them (a last line without its newline too), and the number of the
 * last one whose SHA-256 is `hash` (0 when none is). Reads the whole file: for the writer's start, when its head
 * does not name the file's last line.
 */
export async function scanLines(path: string, hash: string): Promise<{ lines: number; found: number }> {
  const input = createReadStream(path, { encoding: 'utf8' });
  let lines = 0;
  let found = 0;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    lines++;
    if (lineHash(text) === hash) found = lines;
  }
  return { lines, found };
}
