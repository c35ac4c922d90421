import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { checkChain, type AuditLine } from '../../lib/events/audit-chain.js';

/**
 * `authctl audit verify <file…> [--key <auditKey>]`: reads the audit files in the order given (the oldest rotated one
 * first) and checks their chain (docs/events.md#a-tamper-evident-audit-log): each line's `prev` is the SHA-256 of the
 * line before, and with the key each line's `mac` holds. Names the first line that does not and exits 1; a clean log
 * prints its count and exits 0.
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
    .action(async (files: string[], o: { key?: string }) => {
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
      const signed = o.key === undefined ? 'the chain holds (no key given: macs not checked)' : 'chain and macs hold';
      process.stdout.write(`authctl audit: ${found.lines} lines in ${files.length} file(s), ${signed}\n`);
    });
  return audit;
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
