import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { Command, InvalidArgumentError } from 'commander';
import { readSigning, type SigningAlg } from '../../lib/session/signing.js';

const ALGS: readonly SigningAlg[] = ['EdDSA', 'ES256', 'RS256'];

/** A generated signing key, as `--json` prints it. */
interface GeneratedKey {
  alg: SigningAlg;
  /** The id tokens signed with it carry: the RFC 7638 thumbprint of the public key. */
  kid: string;
  /** PKCS#8 PEM, for the `signing.key` option. */
  privateKey: string;
  /** SPKI PEM, for `signing.previousKeys` once the key is retired, or for a verifier without the JWKS. */
  publicKey: string;
}

function parseAlg(value: string): SigningAlg {
  if (!(ALGS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${ALGS.join(', ')} (got ${value})`);
  return value as SigningAlg;
}

/** A new key pair of `alg`: Ed25519, P-256, or RSA of 2048 bits (the least the option takes, and what most issuers use). */
function newPair(alg: SigningAlg): { privateKey: KeyObject; publicKey: KeyObject } {
  if (alg === 'EdDSA') return generateKeyPairSync('ed25519');
  if (alg === 'ES256') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

/**
 * A new key, read back through the `signing` option's own checks: the kid printed is the one the app
 * computes from the same PEM, and a key the option would refuse is never printed.
 */
function generate(alg: SigningAlg): GeneratedKey {
  const pair = newPair(alg);
  const privateKey = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const { kid } = readSigning({ alg, key: privateKey })!.current;
  return { alg, kid, privateKey, publicKey: pair.publicKey.export({ format: 'pem', type: 'spki' }) as string };
}

/**
 * `authctl keys generate [--alg EdDSA|ES256|RS256] [--json]`: a private key for the `signing` option.
 * The PEM alone goes to stdout, so `authctl keys generate > key.pem` writes a file the option loads
 * (`key: 'file:key.pem'`); the alg and kid go to stderr. `--json` prints everything as one object.
 */
export function keysCommand(): Command {
  const keys = new Command('keys').description(
    'signing keys for the signing option (public-key session tokens, the JWKS)',
  );
  keys
    .command('generate')
    .description(
      'print a new private key (PKCS#8 PEM) on stdout, its alg and kid on stderr: authctl keys generate > key.pem',
    )
    .option('-a, --alg <alg>', `the key's algorithm: ${ALGS.join(', ')}`, parseAlg, 'EdDSA' as SigningAlg)
    .option('--json', 'print {"alg","kid","privateKey","publicKey"} (PEM texts) on stdout instead')
    .action((opts: { alg: SigningAlg; json?: boolean }) => {
      const key = generate(opts.alg);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(key, null, 2)}\n`);
        return;
      }
      process.stdout.write(key.privateKey);
      process.stderr.write(`alg: ${key.alg}\nkid: ${key.kid}\n`);
    });
  return keys;
}
