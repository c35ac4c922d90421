import { randomBytes } from 'node:crypto';
import { Command, InvalidArgumentError } from 'commander';

function byteCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 16 || n > 1024) throw new InvalidArgumentError('must be a whole number from 16 to 1024');
  return n;
}

/** `authctl secret [--bytes N]`: prints a random signing secret (base64url) for the `secret` option. */
export function secretCommand(): Command {
  return new Command('secret')
    .description('print a random secret for the secret option (base64url)')
    .option('-b, --bytes <n>', 'random bytes in the secret', byteCount, 32)
    .action((opts: { bytes: number }) => {
      process.stdout.write(randomBytes(opts.bytes).toString('base64url') + '\n');
    });
}
