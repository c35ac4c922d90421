import type { ConnectionOptions } from 'node:tls';
import type { ConnectionShare } from '../util/connections.js';

/**
 * Options of the PostgreSQL backends beyond the URI. Kept apart from the driver code, so the public
 * types of `authkoa/state/postgres` and `authkoa/avatar-stores/postgres` never name `pg`'s own.
 */
export interface PostgresOptions {
  /** The instance's connection share; without it the store opens a pool of its own. */
  connections?: ConnectionShare;
  /** TLS options for node-postgres (a CA, a client certificate); the URI's `sslmode` and friends take precedence. */
  ssl?: ConnectionOptions;
}
