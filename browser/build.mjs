// Builds the browser plugin into dist/browser/:
//   jquery.rest.js      script-tag bundle, attaches $.RestClient to the page's jQuery
//   jquery.rest.min.js  the same, minified
//   index.js (+ .d.ts)  ES module for `authkoa/browser`: export default restClient($)
//                       (plus the deprecated page helpers, thin wrappers over authkoa/client)
//   client.js           ES module for `authkoa/client` (browser and Node): createAuthClient, AuthClientError
//   client.global.js    script-tag bundle of the same: window.authkoaClient = { createAuthClient, AuthClientError }
//   passkey.js          deprecated script-tag bundles of the page helpers (each with the client inside), kept
//   mfa.js              for pages written against them: window.authkoaPasskey = { registerPasskey,
//   sessions.js         loginWithPasskey }, window.authkoaMfa = { mfaStatus, setupTotp, confirmTotp, verifyMfa,
//                       disableTotp, newRecoveryCodes, verifyMfaWithPasskey }, window.authkoaSessions =
//                       { listSessions, endSession, endOtherSessions }
//   jquery.min.js       jQuery itself, copied: the demo page's, which an installed authkoa (jQuery being a
//                       devDependency) has nowhere else to take it from; not among the package's exports
// `node browser/build.mjs` builds them all; `npm run build` (scripts/build.mjs) only when a source changed.
// Tests import buildBrowser() when dist/browser is missing.
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
export const outDir = join(root, 'dist', 'browser');

const banner = '/*! jquery.rest for authkoa | MIT */';
// The metafile names the files each bundle read: the build's inputs, for scripts/build.mjs's up-to-date check.
const common = {
  bundle: true,
  target: 'es2019',
  platform: 'browser',
  logLevel: 'warning',
  banner: { js: banner },
  metafile: true,
  absWorkingDir: root,
};

/** The bundle files the build writes (besides the .d.ts declarations). */
export const bundles = [
  'jquery.rest.js',
  'jquery.rest.min.js',
  'index.js',
  'passkey.js',
  'mfa.js',
  'sessions.js',
  'client.js',
  'client.global.js',
  'jquery.min.js',
];

// The passkey script's entry, inline so only the two public functions become the global.
const passkeyEntry = {
  contents:
    "import { registerPasskey, loginWithPasskey } from './passkey.js';\n" +
    'window.authkoaPasskey = { registerPasskey, loginWithPasskey };\n',
  resolveDir: here,
  sourcefile: 'passkey-global.js',
  loader: 'js',
};

// The two-step login script's entry: only the public functions become the global.
const MFA_FUNCTIONS =
  'mfaStatus, setupTotp, confirmTotp, verifyMfa, disableTotp, newRecoveryCodes, verifyMfaWithPasskey';
const mfaEntry = {
  contents: `import { ${MFA_FUNCTIONS} } from './mfa.js';\nwindow.authkoaMfa = { ${MFA_FUNCTIONS} };\n`,
  resolveDir: here,
  sourcefile: 'mfa-global.js',
  loader: 'js',
};

// The sessions-per-device script's entry: the three public functions become the global.
const SESSION_FUNCTIONS = 'listSessions, endSession, endOtherSessions';
const sessionsEntry = {
  contents: `import { ${SESSION_FUNCTIONS} } from './sessions.js';\nwindow.authkoaSessions = { ${SESSION_FUNCTIONS} };\n`,
  resolveDir: here,
  sourcefile: 'sessions-global.js',
  loader: 'js',
};

// The client's script-tag entry: the factory and the error class become the global.
const clientEntry = {
  contents:
    "import { createAuthClient, AuthClientError } from './client.js';\nwindow.authkoaClient = { createAuthClient, AuthClientError };\n",
  resolveDir: here,
  sourcefile: 'client-global.js',
  loader: 'js',
};

/**
 * Builds the bundles into `dir` (default dist/browser), and the type declarations into
 * dist/browser unless `declarations` is false. Adds the files the bundles read (absolute paths) to
 * `inputs` when given. Returns `dir`.
 */
export async function buildBrowser({ dir = outDir, declarations = true, inputs = new Set() } = {}) {
  await mkdir(dir, { recursive: true });
  const require = createRequire(import.meta.url);
  const tsc = require.resolve('typescript/bin/tsc');
  // require('jquery') resolves to dist/jquery.js (its "default" export); the minified build sits beside it.
  const jquery = join(dirname(require.resolve('jquery')), 'jquery.min.js');
  const read = (result) => {
    // A stdin entry's sourcefile names no file on disk: its text is in this file, itself an input.
    for (const f of Object.keys(result.metafile.inputs)) if (existsSync(join(root, f))) inputs.add(join(root, f));
  };
  inputs.add(jquery);
  await Promise.all([
    build({ ...common, entryPoints: [join(here, 'global.ts')], format: 'iife', outfile: join(dir, bundles[0]) }).then(
      read,
    ),
    build({
      ...common,
      entryPoints: [join(here, 'global.ts')],
      format: 'iife',
      minify: true,
      outfile: join(dir, bundles[1]),
    }).then(read),
    build({ ...common, entryPoints: [join(here, 'index.ts')], format: 'esm', outfile: join(dir, bundles[2]) }).then(
      read,
    ),
    build({
      ...common,
      banner: { js: '/*! authkoa passkey | MIT */' },
      stdin: passkeyEntry,
      format: 'iife',
      outfile: join(dir, bundles[3]),
    }).then(read),
    build({
      ...common,
      banner: { js: '/*! authkoa mfa | MIT */' },
      stdin: mfaEntry,
      format: 'iife',
      outfile: join(dir, bundles[4]),
    }).then(read),
    build({
      ...common,
      banner: { js: '/*! authkoa sessions | MIT */' },
      stdin: sessionsEntry,
      format: 'iife',
      outfile: join(dir, bundles[5]),
    }).then(read),
    // No platform built-ins: the same file runs in a browser and in Node.
    build({
      ...common,
      banner: { js: '/*! authkoa client | MIT */' },
      platform: 'neutral',
      entryPoints: [join(here, 'client.ts')],
      format: 'esm',
      outfile: join(dir, bundles[6]),
    }).then(read),
    build({
      ...common,
      banner: { js: '/*! authkoa client | MIT */' },
      stdin: clientEntry,
      format: 'iife',
      outfile: join(dir, bundles[7]),
    }).then(read),
    copyFile(jquery, join(dir, bundles[8])),
    declarations && promisify(execFile)(process.execPath, [tsc, '-p', join(here, 'tsconfig.json')], { cwd: root }),
  ]);
  return dir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildBrowser();
}
