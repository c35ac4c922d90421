import { splitMongoUri, type MongoStateTarget } from '../util/mongodb-uri.js';

/**
 * The account store's URI: `accounts_db` and `accounts_coll` (default `accounts`) split off. The database
 * is `accounts_db`, else the URI's own, else `authkoa`. Kept with the feature: the parameters are its own.
 */
export function parseMongoAccountsUri(uri: string): MongoStateTarget {
  const target = splitMongoUri(uri, ['accounts_db', 'accounts_coll']);
  return {
    uri: target.uri,
    db: target.own.accounts_db || target.uriDb || 'authkoa',
    collection: target.own.accounts_coll || 'accounts',
  };
}
