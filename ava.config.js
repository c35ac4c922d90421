// The files that take longest alone (measured alone), started
// first: AVA starts files in the order given and keeps `concurrency` running, so a long file started
// near the end would run on alone while the other core idles. Longest first leaves the short ones to
// fill in at the end. A file not listed keeps AVA's own order, after these.
const SLOWEST_FIRST = [
  'spec/example/e2e.test.ts',
  'spec/package/consume.test.ts',
  'spec/mfa/browser.test.ts',
  'spec/example/phone.test.ts',
  'spec/events/audit-chain.test.ts',
  'spec/example/features.test.ts',
  'spec/example/passkeys.test.ts',
  'spec/mfa/browser-passkey.test.ts',
  'spec/events/audit-head.test.ts',
  'spec/mfa/factor-store.test.ts',
  'spec/security/throttle-parallel.test.ts',
  'spec/mfa/kinds-redirect.test.ts',
  'spec/events/login-kinds.test.ts',
  'spec/package/metadata.test.ts',
  'spec/example/events-page.test.ts',
  'spec/passkey/browser.test.ts',
];
// By name without the extension: the suite's compiled copy (ava.suite.config.js) runs the same files as .js.
const rank = (file) => {
  const i = SLOWEST_FIRST.findIndex((f) => file.replace(/\.js$/, '.ts').endsWith(f));
  return i === -1 ? SLOWEST_FIRST.length : i;
};

// `npx ava spec/x.test.ts` runs files from their sources, under tsx; `npm test` runs the compiled copy instead
// (ava.suite.config.js). tsx must run in child processes: ava 7's worker threads do not inherit `--import` hooks on Node 20.
export default {
  files: ['spec/**/*.test.ts', '!spec/security/load.test.ts'], // the load test runs alone: ava.load.config.js
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  workerThreads: false,
  concurrency: 2,
  // Array.prototype.sort is stable: the files of one rank keep AVA's order.
  sortTestFiles: (a, b) => rank(a) - rank(b),
  // How long a worker may go without a test result before AVA ends it (a hang). Files that start app
  // processes under tsx ran single tests of up to 58 s beside other suites on 2 cores: 60 s was at the edge.
  timeout: '180s',
};
