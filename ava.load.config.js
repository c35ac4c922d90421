// The 10 000-login load test, run by `npm test` after every other file and alone, so its load never
// shares the CPU with another test file; from the compiled copy, as the rest of the suite.
import suite, { SUITE } from './ava.suite.config.js';

export default { ...suite, files: [`${SUITE}/spec/security/load.test.js`], concurrency: 1 };
