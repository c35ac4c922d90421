/**
 * Loaded with `node --import=<this file>`: the packages named in AUTHKOA_HIDE_PACKAGES (comma-separated) cannot be
 * found, as in an app that never installed them, while the rest of node_modules stays. The resolve hook answers
 * what Node's resolver answers for a package that is not there (ERR_MODULE_NOT_FOUND, "Cannot find package 'pg'").
 */
import { register } from 'node:module';

const hidden = (process.env.AUTHKOA_HIDE_PACKAGES ?? '').split(',').filter(Boolean);
register('./hide-packages-hooks.mjs', import.meta.url, { data: { hidden } });
