import type { RedisOptions } from 'ioredis';

/** A parsed `redis://` or `rediss://` URI. */
export interface RedisTarget {
  options: RedisOptions;
  prefix: string;
  timeoutMs: number;
  /** The URI with its password replaced by `***`. */
  redacted: string;
}

/**
 * `redis[s]://[[user]:password@]host[:port][/db][?prefix=<p>&timeout=<ms>]`. `rediss://` is TLS. A bad
 * part throws a TypeError naming it; the password never appears in a message.
 */
export function parseRedisUri(uri: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new TypeError('authKoa: stateStore: not a valid redis:// URI');
  }
  if (url.password) url.password = '***';
  const redacted = url.href;
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new TypeError(`authKoa: stateStore ${redacted}: the scheme must be redis:// or rediss://`);
  const raw = new URL(uri);
  const dbText = decodeURIComponent(raw.pathname.replace(/^\//, '')) || '0';
  if (!/^\d{1,5}$/.test(dbText))
    throw new TypeError(`authKoa: stateStore ${redacted}: the database must be a number, as in redis://host:6379/0`);
  let prefix = 'authkoa:';
  let timeoutMs = 2000;
  for (const [name, value] of raw.searchParams) {
    if (name === 'prefix') prefix = value;
    else if (name === 'timeout') {
      timeoutMs = Number(value);
      if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
        throw new TypeError(`authKoa: stateStore ${redacted}: timeout must be a positive number of ms`);
    } else
      throw new TypeError(
        `authKoa: stateStore ${redacted}: unknown parameter "${name}" (prefix and timeout are supported)`,
      );
  }
  return {
    options: {
      host: raw.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
      port: raw.port ? Number(raw.port) : 6379,
      username: raw.username ? decodeURIComponent(raw.username) : undefined,
      password: raw.password ? decodeURIComponent(raw.password) : undefined,
      db: Number(dbText),
      tls: raw.protocol === 'rediss:' ? { servername: raw.hostname } : undefined,
    },
    prefix,
    timeoutMs,
    redacted,
  };
}
