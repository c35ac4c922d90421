import { MongoClient, type Db } from 'mongodb';

/**
 * A MongoDB connection that is known to work before it is handed out, for both MongoDB backends (the
 * GridFS avatar store and the state store; their URIs are read in mongodb-uri.ts). Imported only by
 * those backends, so the driver loads when a `mongodb://` URI is configured.
 */

/**
 * Connects and pings `dbName`, so a wrong or unreachable server fails here rather than at the first
 * use. Without a `serverSelectionTimeoutMS` in the URI, server selection and connecting give up after
 * `timeoutMs`. A failed attempt closes its client.
 */
export async function connectMongo(
  uri: string,
  dbName: string,
  timeoutMs: number,
): Promise<{ client: MongoClient; db: Db }> {
  const explicitTimeout = /[?&]serverSelectionTimeoutMS=/i.test(uri);
  const client = new MongoClient(
    uri,
    explicitTimeout ? {} : { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs },
  );
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
