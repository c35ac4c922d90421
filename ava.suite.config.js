// What `npm test` runs: every test file from the copy of the repository scripts/build-suite.mjs compiled into
// .tmp/suite/, as plain JavaScript, with the settings of ava.config.js (order, concurrency, timeout). AUTHKOA_SUITE
// tells the helpers (spec/helpers/source.ts) to start a test's child processes from the same copy.
import { join } from 'node:path';
import base from './ava.config.js';

export const SUITE = '.tmp/suite';

export default {
  ...base,
  files: [`${SUITE}/spec/**/*.test.js`, `!${SUITE}/spec/security/load.test.js`],
  extensions: ['js'],
  nodeArguments: [],
  environmentVariables: { AUTHKOA_SUITE: join(import.meta.dirname, SUITE) },
};
