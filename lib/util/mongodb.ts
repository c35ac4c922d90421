import { MongoClient, type Db } from 'mongodb';

/**
 * The MongoDB plumbing both MongoDB backends share (the GridFS avatar store and the state store): their
 * own parameters split off a URI, and a connection that is known to work before it is handed out.
 * Imported only by those backends, so the driver loads when a `mongodb://` URI is configured.
 */

/** A MongoDB URI with the backend's own query parameters taken out; the rest goes to the driver unchanged. */
export interface MongoTarget {
  /** The connection URI without the backend's parameters (it may carry credentials: never log it). */
  uri: string;
  /** The backend's parameters as given (absent ones missing). */
  own: Record<string, string>;
  /** The database named in the URI's path (`mongodb://host/app` → `app`), or ''. */
  uriDb: string;
}

export function splitMongoUri(uri: string, ownParams: readonly string[]): MongoTarget {
  const q = uri.indexOf('?');
  const base = q < 0 ? uri : uri.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : uri.slice(q + 1));
  const own: Record<string, string> = {};
  for (const name of ownParams) {
    const v = params.get(name);
    if (v) own[name] = v;
    params.delete(name);
  }
  const authority = base.slice(base.indexOf('://') + 3); // user:pw@host1,host2 never holds a '/'
  const slash = authority.indexOf('/');
  const rest = params.toString();
  return { uri: rest ? `${base}?${rest}` : base, own, uriDb: slash < 0 ? '' : decodeURIComponent(authority.slice(slash + 1)) };
}

/**
 * Connects and pings `dbName`, so a wrong or unreachable server fails here rather than at the first
 * use. Without a `serverSelectionTimeoutMS` in the URI, server selection and connecting give up after
 * `timeoutMs`. A failed attempt closes its client.
 */
export async function connectMongo(uri: string, dbName: string, timeoutMs: number): Promise<{ client: MongoClient; db: Db }> {
  const explicitTimeout = /[?&]serverSelectionTimeoutMS=/i.test(uri);
  const client = new MongoClient(uri, explicitTimeout ? {} : { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs });
  try {
    await client.connect();
    const db = client.db(dbName);
    await db.command({ ping: 1 });
    return { client, db };
  } catch (err) {
    await client.close().catch(() => {});
    throw err;
  }
}
