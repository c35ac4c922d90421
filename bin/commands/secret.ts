import { randomBytes } from 'node:crypto';
import { Command } from 'commander';
import { wholeNumber } from './args.js';

/**
 * `authctl secret [--bytes N]`: prints N random bytes, base64url, for the `secret` option. That option
 * counts the bytes of its text (at least 32); base64url writes 4 characters per 3 bytes, so 24 random
 * bytes are the fewest that make 32 characters. The help spells out both units, bytes drawn and
 * characters printed, so neither reads as the other.
 */
export function secretCommand(): Command {
  return new Command('secret')
    .description('print a random secret for the secret option (base64url)')
    .option(
      '-b, --bytes <n>',
      'random bytes to draw, at least 24; printed base64url, 4 characters per 3 bytes (32 bytes: 43 characters; 24 bytes: 32, the least the secret option takes)',
      wholeNumber(24, 1024),
      32,
    )
    .action((opts: { bytes: number }) => {
      process.stdout.write(randomBytes(opts.bytes).toString('base64url') + '\n');
    });
}
