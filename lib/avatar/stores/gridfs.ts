import { GridFSBucket, type Db, type GridFSFile, type MongoClient, type ObjectId } from 'mongodb';
import { connectMongo } from '../../util/mongodb.js';
import { parseMongoUri, type GridFsTarget } from '../../util/mongodb-uri.js';
import { sha1 } from '../../user.js';
import {
  avatarId,
  isAvatarId,
  toBuffer,
  type AvatarEntry,
  type AvatarStore,
  type PutOptions,
  type StoredAvatar,
} from './types.js';

/** Per-operation limit, as the original's 5 s. */
const OP_TIMEOUT_MS = 5_000;

/**
 * Avatars in MongoDB GridFS through the official driver's GridFSBucket. File name = avatar id,
 * metadata `{ hash: sha1(bytes) }` (the original's layout, so its buckets read back unchanged). Put
 * uploads a new revision and then deletes the older ones, so readers always find a whole file.
 */
export class GridFsStore implements AvatarStore {
  readonly #client: MongoClient;
  readonly #bucket: GridFSBucket;
  readonly #name: string;
  #closed = false;

  private constructor(client: MongoClient, db: Db, target: GridFsTarget) {
    this.#client = client;
    this.#bucket = new GridFSBucket(db, { bucketName: target.bucket });
    this.#name = `${target.db}/${target.bucket}`;
  }

  /** Connects and pings, so a wrong or unreachable server fails here rather than at the first login. */
  static async open(uri: string): Promise<GridFsStore> {
    const target = parseMongoUri(uri);
    const { client, db } = await connectMongo(target.uri, target.db, 30_000);
    return new GridFsStore(client, db, target);
  }

  async put(userId: string, image: Buffer, opts: PutOptions = {}): Promise<string> {
    const data = toBuffer(image, 'GridFsStore.put');
    const id = avatarId(userId).toLowerCase();
    // uploadDate orders revisions, so a migrated avatar's own time goes in the metadata.
    const metadata = opts.modified ? { hash: sha1(data), modified: opts.modified } : { hash: sha1(data) };
    const upload = this.#bucket.openUploadStream(id, { metadata });
    await new Promise<void>((resolve, reject) => {
      upload.once('error', reject);
      upload.once('finish', () => resolve());
      upload.end(data);
    });
    // Delete only revisions older than ours: a concurrent put's newer revision must survive, or two
    // puts racing could each delete the other's and leave nothing.
    const revisions = await this.#revisions(id);
    const mine = revisions.findIndex((f) => f._id.equals(upload.id));
    if (mine >= 0) for (const f of revisions.slice(mine + 1)) await this.#delete(f._id);
    return id;
  }

  async get(id: string): Promise<StoredAvatar | undefined> {
    if (!isAvatarId(id)) return undefined;
    const key = id.toLowerCase();
    const [newest] = await this.#revisions(key);
    if (!newest) return undefined;
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of this.#bucket.openDownloadStream(newest._id, { timeoutMS: OP_TIMEOUT_MS }))
        chunks.push(chunk as Buffer);
    } catch (err) {
      if (isFileNotFound(err)) return undefined; // removed between find and download
      throw err;
    }
    const hash = (newest.metadata as { hash?: unknown } | undefined)?.hash;
    return { data: Buffer.concat(chunks), etag: typeof hash === 'string' ? hash : sha1(key) };
  }

  async remove(id: string): Promise<void> {
    if (!isAvatarId(id)) return;
    for (const f of await this.#revisions(id.toLowerCase())) await this.#delete(f._id);
  }

  async *list(): AsyncIterable<AvatarEntry> {
    // Newest revision first per name; a concurrent put may briefly leave two revisions.
    const cursor = this.#bucket.find({}, { sort: { filename: 1, uploadDate: -1 }, timeoutMS: OP_TIMEOUT_MS });
    let last = '';
    for await (const f of cursor) {
      if (f.filename === last || !isAvatarId(f.filename)) continue;
      last = f.filename;
      yield {
        id: f.filename,
        size: f.length,
        modified: f.metadata?.modified instanceof Date ? f.metadata.modified : f.uploadDate,
      };
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#client.close();
  }

  toString(): string {
    return `gridfs store ${this.#name}`;
  }

  /** All revisions of one avatar, newest first. */
  async #revisions(id: string): Promise<GridFSFile[]> {
    return this.#bucket
      .find({ filename: id }, { sort: { uploadDate: -1, _id: -1 }, timeoutMS: OP_TIMEOUT_MS })
      .toArray();
  }

  async #delete(fileId: ObjectId): Promise<void> {
    try {
      await this.#bucket.delete(fileId, { timeoutMS: OP_TIMEOUT_MS });
    } catch (err) {
      if (!isFileNotFound(err)) throw err; // a concurrent put already removed it
    }
  }
}

function isFileNotFound(err: unknown): boolean {
  return /FileNotFound|file not found/i.test(String((err as Error | null)?.message ?? err));
}
