import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { checkChain, type AuditLine } from '../../lib/events/audit-chain.js';
import { checkHead, headPathOf, readHead } from '../../lib/events/audit-head.js';

/**
 * `authctl audit verify <file…> [--key <auditKey>] [--head <file> | --no-head]`: reads the audit files in the order given (the oldest rotated one
 * first) and checks their chain (docs/events.md#a-tamper-evident-audit-log): each line's `prev` is the SHA-256 of the
 * line before, and with the key each line's `mac` holds. Names the first line that does not and exits 1. Then the
 * head beside the last file (`<file>.head`, or `--head`): with the key its mac must hold, and the line it names must be
 * there, else lines were cut from the end (exit 1). A clean log prints its count and exits 0.
 */
export function auditCommand(): Command {
  const audit = new Command('audit').description('the audit log (the audit option)');
  audit
    .command('verify')
    .description('check the chain of audit files, in the order given: the first bad line is named, exit 1')
    .argument('<files...>', 'the audit files, oldest first (rotated ones before the current one)')
    .option(
      '--key <auditKey>',
      'the auditKey option: each line’s mac is checked too (an edit with the chain recomputed)',
    )
    .option('--head <file>', 'the head naming the log’s last line (default: the last file’s, <file>.head)')
    .option('--no-head', 'check the chain alone: a rotated file by itself, a log written to a stream')
    .action(async (files: string[], o: { key?: string; head?: string | false }) => {
      if (o.key !== undefined && o.key.length < 32)
        throw new Error('--key must be the auditKey option: at least 32 characters');
      const lines = await readAll(files);
      const found = checkChain(lines, o.key);
      if (found.bad) {
        const { file, line, reason } = found.bad;
        process.stderr.write(`authctl audit: ${file}:${line}: ${reason}\n`);
        process.exitCode = 1;
        return;
      }
      const headNotes =
        o.head === false
          ? ['the head was not checked (--no-head)']
          : await headOf(files, lines, { key: o.key, head: o.head || undefined });
      if (!headNotes) return;
      const signed = o.key === undefined ? 'the chain holds (no key given: macs not checked)' : 'chain and macs hold';
      process.stdout.write(`authctl audit: ${found.lines} lines in ${files.length} file(s), ${signed}\n`);
      for (const note of headNotes) process.stdout.write(`authctl audit: ${note}\n`);
    });
  return audit;
}

/**
 * Checks the head against the lines: its notes when it holds; undefined, with the problem on stderr and exit code 1,
 * when it does not or is missing (a deleted head is how a cut would hide).
 */
async function headOf(files: string[], lines: AuditLine[], o: { key?: string; head?: string }) {
  const last = files[files.length - 1];
  const path = o.head ?? headPathOf(last);
  const head = await readHead(path);
  const problem = head
    ? checkHead(head, lines, o.key)
    : {
        problem: `no head (${path}): the log's end is not anchored, and lines cut from it would not show; --no-head checks the chain alone`,
        notes: [],
      };
  if (problem.problem === undefined) return [`the head holds: its line ${head!.count} is in the log`, ...problem.notes];
  process.stderr.write(`authctl audit: ${last}: ${problem.problem}\n`);
  for (const note of problem.notes) process.stderr.write(`authctl audit: ${note}\n`);
  process.exitCode = 1;
  return undefined;
}

/** Every line of the files, in order; a file that cannot be read is a one-line error naming it. */
async function readAll(files: string[]): Promise<AuditLine[]> {
  const lines: AuditLine[] = [];
  for (const file of files) {
    const input = createReadStream(file, { encoding: 'utf8' });
    let n = 0;
    try {
      for await (const text of createInterface({ input, crlfDelay: Infinity })) lines.push({ file, line: ++n, text });
    } catch (err) {
      throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return lines;
}
