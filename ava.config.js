// tsx must run in child processes: ava 7's worker threads do not inherit `--import` hooks on Node 20.
export default {
  files: ['spec/**/*.test.ts', '!spec/security/load.test.ts'], // the load test runs alone: ava.load.config.js
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  workerThreads: false,
  concurrency: 2,
  // How long a worker may go without a test result before AVA ends it (a hang). Files that start app
  // processes under tsx ran single tests of up to 58 s beside other suites on 2 cores: 60 s was at the edge.
  timeout: '180s',
};
