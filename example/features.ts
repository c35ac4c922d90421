import { createServer } from 'node:net';

/**
 * The demo's features that rest on an optional peer package (package.json's peerDependenciesMeta), on
 * where it listens, or on a port being free (the dev OAuth2 server's). `npx authctl demo` from an install has none of the optional packages, and the README
 * promises the demo needs nothing else: so a feature whose package is missing is left out and reported
 * (the banner, GET /features, the page), where authKoa itself, told to use it, would refuse to start.
 */

/** Whether a package can be loaded; the tests pass their own to run the demo as an install without it. */
export type Installed = (pkg: string) => boolean;

/**
 * Resolved as authkoa resolves its optional packages (an import from inside the package, so an
 * application's own node_modules counts), without loading it: jimp alone takes a second to load.
 */
export const isInstalled: Installed = (pkg) => {
  try {
    import.meta.resolve(pkg);
    return true;
  } catch {
    return false;
  }
};

/** One optional feature of the demo, as GET /features reports it. */
export interface DemoFeature {
  name: 'passkeys' | 'avatars' | 'telegram' | 'dev';
  available: boolean;
  /** What the page calls it. */
  what: string;
  /** Why it is off and how to have it, when it is off. */
  reason?: string;
}

/** What decides the features besides installed packages. */
export interface FeatureSetup {
  installed: Installed;
  /** The listen address, and whether the public URL is a host name WebAuthn accepts (publicUrl). */
  host: string;
  passkeyHost: boolean;
  /** Whether a Telegram bot token is set: without one the demo offers no Telegram login, and says nothing of it. */
  telegramToken: boolean;
  /** Why the dev OAuth2 server cannot listen (devPortProblem), if it cannot: the dev provider is then left out. */
  devPortProblem?: string;
}

/**
 * Why the dev OAuth2 server could not listen on `port` of `host` (another program holds it), or undefined when it
 * can: tried before authKoa() is built, so a dev provider whose server would not start is left out and said off,
 * not listed with logins that answer 503. A port of 0 is always free.
 */
export async function devPortProblem(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return undefined;
  const probe = createServer();
  const code = await new Promise<string | undefined>((resolve) => {
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
  if (code === undefined) return undefined;
  const fix = 'start the demo with --dev-port <n> (or DEV_PORT) to have it';
  return code === 'EADDRINUSE'
    ? `port ${port} on ${host} is in use: ${fix}`
    : `port ${port} on ${host} cannot be listened on (${code}): ${fix}`;
}

const missing = (pkg: string) => `the package "${pkg}" is not installed: npm install ${pkg}, then start the demo again`;

/** The demo's optional features, each available or off with the reason. */
export function demoFeatures(s: FeatureSetup): DemoFeature[] {
  const passkeys: DemoFeature = {
    name: 'passkeys',
    what: 'Passkeys (to log in, and as a second step)',
    available: false,
  };
  if (!s.installed('@simplewebauthn/server')) passkeys.reason = missing('@simplewebauthn/server');
  else if (!s.passkeyHost) {
    passkeys.reason = `WebAuthn refuses IP addresses such as ${s.host}; listen on 127.0.0.1, ::1 or a host name to have them`;
  } else passkeys.available = true;
  // Avatars are proxied and stored either way; without jimp they are kept at the size the provider sent.
  const avatars: DemoFeature = { name: 'avatars', what: 'Avatars resized to 200 px', available: s.installed('jimp') };
  if (!avatars.available) avatars.reason = `avatars are kept at their original size: ${missing('jimp')}`;
  const features = [passkeys, avatars];
  // Said only when off, as Telegram only when a token is set: a free port is the usual case.
  if (s.devPortProblem !== undefined)
    features.push({ name: 'dev', what: 'The dev OAuth2 server', available: false, reason: s.devPortProblem });
  if (s.telegramToken) {
    const available = s.installed('node-telegram-bot-api');
    features.push({
      name: 'telegram',
      what: 'Telegram login',
      available,
      ...(available ? {} : { reason: missing('node-telegram-bot-api') }),
    });
  }
  return features;
}

/** Whether the feature `name` is on. */
export function featureOn(features: readonly DemoFeature[], name: DemoFeature['name']): boolean {
  return features.some((f) => f.name === name && f.available);
}
