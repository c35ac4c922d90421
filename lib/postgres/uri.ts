/**
 * `postgres://` and `postgresql://` URIs, read without loading the driver:
 * `postgres://[user[:password]@]host[:port]/database[?schema=<s>&prefix=<p>&timeout=<ms>&sslmode=…]`.
 * `schema`, `prefix` and `timeout` are authkoa's; the TLS parameters (`sslmode`, `sslrootcert`,
 * `sslcert`, `sslkey`) and `application_name` pass through to node-postgres. A bad part throws a
 * TypeError naming the option and the URI with its password replaced by `***`.
 */

export interface PostgresTarget {
  /** What node-postgres connects with: the URI without authkoa's own parameters. */
  connectionString: string;
  /** The schema the tables live in; created when missing. Default `public`. */
  schema: string;
  /** Prepended to each table name, so several applications share one schema. Default `authkoa_`. */
  prefix: string;
  /** Bound on connecting and on each statement, in ms (server-side statement_timeout too). Default 5000. */
  timeoutMs: number;
  /** The URI with its password replaced by `***`: safe to log and to put in messages. */
  redacted: string;
}

const OURS = ['schema', 'prefix', 'timeout'];
const PASSED = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'application_name'];
/** SQL identifiers we build table names from: no quoting games, nothing PostgreSQL would fold. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,39}$/;

export function parsePostgresUri(uri: string, option = 'stateStore'): PostgresTarget {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new TypeError(`authKoa: ${option}: not a valid postgres:// URI`);
  }
  const redacted = redact(url);
  const fail = (what: string) => new TypeError(`authKoa: ${option} ${redacted}: ${what}`);
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw fail('the scheme must be postgres:// or postgresql://');
  if (!url.hostname) throw fail('a host is required, as in postgres://user@127.0.0.1:5432/app');
  if (url.pathname.replace(/^\//, '') === '')
    throw fail('a database is required, as in postgres://user@127.0.0.1:5432/app');
  const params = new URLSearchParams();
  const read: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (OURS.includes(name)) read[name] = value;
    else if (PASSED.includes(name)) params.append(name, value);
    else throw fail(`unknown parameter "${name}" (${[...OURS, ...PASSED].join(', ')} are supported)`);
  }
  const schema = read.schema ?? 'public';
  const prefix = read.prefix ?? 'authkoa_';
  if (!IDENTIFIER.test(schema))
    throw fail('schema must be lower-case letters, digits and _, starting with a letter or _');
  if (prefix !== '' && !IDENTIFIER.test(prefix))
    throw fail('prefix must be lower-case letters, digits and _, starting with a letter or _');
  const timeoutMs = read.timeout === undefined ? 5000 : Number(read.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw fail('timeout must be a positive number of ms');
  const plain = new URL(uri);
  plain.search = params.toString();
  return { connectionString: plain.href, schema, prefix, timeoutMs, redacted };
}

/** The URI with its password replaced by `***`. */
function redact(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password) copy.password = '***';
  return copy.href;
}

/** `"schema"."<prefix>name"`: identifiers are checked by parsePostgresUri, quoting keeps them exact. */
export function tableName(target: Pick<PostgresTarget, 'schema' | 'prefix'>, name: string): string {
  return `"${target.schema}"."${target.prefix}${name}"`;
}
