// The 10 000-login load test, run by `npm test` after every other file and alone, so its load never
// shares the CPU with another test file.
import base from './ava.config.js';

export default { ...base, files: ['spec/security/load.test.ts'], concurrency: 1 };
