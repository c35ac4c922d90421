import { randomBytes } from 'node:crypto';
import { Command } from 'commander';
import { wholeNumber } from './args.js';

/** `authctl secret [--bytes N]`: prints a random signing secret (base64url) for the `secret` option. */
export function secretCommand(): Command {
  return new Command('secret')
    .description('print a random secret for the secret option (base64url)')
    .option('-b, --bytes <n>', 'random bytes in the secret (24 or more: the secret option needs 32 characters)', wholeNumber(24, 1024), 32)
    .action((opts: { bytes: number }) => {
      process.stdout.write(randomBytes(opts.bytes).toString('base64url') + '\n');
    });
}
