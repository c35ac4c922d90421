import type { TokenConfig } from '../session/token-service.js';
import { bool, fail, optionalFunction, stringList, type RawOptions } from './read.js';

/** HS256 keys shorter than the hash output (32 bytes) can be guessed offline from any one token. */
export const MIN_SECRET_BYTES = 32;

/** The length in bytes of a secret too short to sign with, or undefined when it is long enough. */
export function shortSecretBytes(secret: string): number | undefined {
  const bytes = Buffer.byteLength(secret);
  return bytes < MIN_SECRET_BYTES ? bytes : undefined;
}

/** The signing and verifying secrets: `secret` (with `previousSecrets`), or a `secretReader`. */
export function readSecrets(
  o: RawOptions,
): Pick<TokenConfig, 'secretReader' | 'staticSecret' | 'previousSecrets' | 'audSecrets'> {
  const secret = o.secret;
  if (secret !== undefined && (typeof secret !== 'string' || secret.length === 0))
    fail('secret', 'must be a non-empty string');
  const reader = optionalFunction<(aud: string) => string | Promise<string>>(o, 'secretReader', 'get');
  if (secret === undefined && !reader) fail('secret', 'is required (or give secretReader)');
  if (typeof secret === 'string' && !reader) checkSecretLength(secret);
  const staticSecret = reader ? undefined : (secret as string);
  const previousSecrets = stringList(o, 'previousSecrets') ?? [];
  if (previousSecrets.some((s) => s === '')) fail('previousSecrets', 'must not contain empty strings');
  if (previousSecrets.length > 0 && reader)
    fail('previousSecrets', 'works with secret, not secretReader (a reader decides per call)');
  return {
    secretReader: reader ?? (() => staticSecret as string),
    staticSecret,
    previousSecrets,
    audSecrets: bool(o, 'audSecrets', false),
  };
}

function checkSecretLength(secret: string): void {
  const bytes = shortSecretBytes(secret);
  if (bytes === undefined) return;
  fail(
    'secret',
    `is ${bytes} bytes; it must be at least ${MIN_SECRET_BYTES} bytes of random text ` +
      '(`npx authctl secret` prints one). ' +
      'To keep accepting the tokens signed with the old secret during the change, move it to previousSecrets',
  );
}

/**
 * A reader's secrets cannot be checked by authKoa(), so start-up asks it for "ignore" and for each
 * audience it will sign for. A secret shorter than 32 bytes is refused, as the `secret` option is.
 * Without `audSecrets`, tokens are signed with the secret of their audience but verified with the
 * reader's answer for "ignore" (the original's rule); a reader that answers per audience would then
 * break every token with a 401 nobody can explain, so differing answers are refused too. A reader that
 * fails now (a vault not up yet) is asked again per request, as before.
 */
export async function checkSecretReader(o: TokenConfig): Promise<void> {
  if (o.staticSecret !== undefined) return;
  const answers: Array<[string, unknown]> = [];
  try {
    for (const aud of ['ignore', ...(o.audiences ?? [''])]) answers.push([aud, await o.secretReader(aud)]);
  } catch {
    return;
  }
  for (const [aud, secret] of answers) {
    // An empty answer is "not available", which requests report themselves.
    const bytes = typeof secret === 'string' && secret !== '' ? shortSecretBytes(secret) : undefined;
    if (bytes !== undefined) {
      throw new TypeError(
        `authKoa: secretReader gives audience "${aud}" a secret of ${bytes} bytes; each must be at least ` +
          `${MIN_SECRET_BYTES} bytes of random text (\`npx authctl secret\` prints one)`,
      );
    }
  }
  if (o.audSecrets) return;
  const other = answers.slice(1).find(([, secret]) => secret !== answers[0][1]);
  if (other) {
    throw new TypeError(
      `authKoa: secretReader gives audience "${other[0]}" another secret than "ignore", but tokens are verified ` +
        `with the secret for "ignore" unless audSecrets is true: set audSecrets: true to verify each token with ` +
        `its audience's secret`,
    );
  }
}
