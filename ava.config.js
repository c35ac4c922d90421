// tsx must run in child processes: ava 7's worker threads do not inherit `--import` hooks on Node 20.
export default {
  files: ['spec/**/*.test.ts', '!spec/security/load.test.ts'], // the load test runs alone: ava.load.config.js
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  workerThreads: false,
  concurrency: 2,
  timeout: '60s',
};
