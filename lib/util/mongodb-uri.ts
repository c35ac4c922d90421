/**
 * MongoDB URIs as authkoa's MongoDB backends read them (the GridFS avatar store, the state store; the
 * account store's own in lib/accounts/mongodb-uri.ts): each takes its own query parameters off the URI and
 * hands the rest to the driver unchanged. No driver code here, so the URIs can be read without loading it.
 */

/** A MongoDB URI with the backend's own query parameters taken out. */
interface SplitUri {
  /** The connection URI without the backend's parameters (it may carry credentials: never log it). */
  uri: string;
  /** The backend's parameters as given (absent ones missing). */
  own: Record<string, string>;
  /** The database named in the URI's path (`mongodb://host/app` → `app`), or ''. */
  uriDb: string;
}

export function splitMongoUri(uri: string, ownParams: readonly string[]): SplitUri {
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
  return {
    uri: rest ? `${base}?${rest}` : base,
    own,
    uriDb: slash < 0 ? '' : decodeURIComponent(authority.slice(slash + 1)),
  };
}

/** Where the GridFS store keeps avatars, read from a `mongodb://…?ava_db=…&ava_coll=…` URI. */
export interface GridFsTarget {
  /** The connection URI with the `ava_*` parameters removed (it may carry credentials: never log it). */
  uri: string;
  /** Database name (`ava_db`, default `test`, as the original). */
  db: string;
  /** GridFS bucket name (`ava_coll`, default `avatars_fs`). */
  bucket: string;
}

/** The GridFS avatar store's URI: `ava_db` and `ava_coll` split off. */
export function parseMongoUri(uri: string): GridFsTarget {
  const target = splitMongoUri(uri, ['ava_db', 'ava_coll']);
  return { uri: target.uri, db: target.own.ava_db || 'test', bucket: target.own.ava_coll || 'avatars_fs' };
}

/** Where the state lives: connection URI without our two parameters, database, collection. */
export interface MongoStateTarget {
  uri: string;
  db: string;
  collection: string;
}

/**
 * The state store's URI: `state_db` and `state_coll` (default `state`) split off, as the avatar store
 * does with `ava_db` / `ava_coll`. The database is `state_db`, else the URI's own
 * (`mongodb://host/app` → `app`), else `authkoa`.
 */
export function parseMongoStateUri(uri: string): MongoStateTarget {
  const target = splitMongoUri(uri, ['state_db', 'state_coll']);
  return {
    uri: target.uri,
    db: target.own.state_db || target.uriDb || 'authkoa',
    collection: target.own.state_coll || 'state',
  };
}
