/** Picture servers and test images for the avatar tests: real HTTP on 127.0.0.x, real PNG/JPEG bytes. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';
import { Jimp } from 'jimp';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface PictureServer {
  url: string;
  /** Requests received, by path: SSRF tests check that a refused target saw nothing. */
  hits: string[];
  close(): Promise<void>;
}

/** Serves `routes` on `host` (default 127.0.0.1), on a free port. */
export async function pictureServer(routes: Record<string, Handler>, host = '127.0.0.1'): Promise<PictureServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const route = routes[(req.url ?? '').split('?')[0]!];
    if (route) route(req, res);
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler answering fixed bytes with a content type. */
export const serve =
  (body: Buffer | string, type = 'image/png'): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
  };

/** A solid-colour JPEG of the given size (jimp, fine for moderate sizes). */
export async function jpeg(width: number, height: number): Promise<Buffer> {
  return new Jimp({ width, height, color: 0x3366ccff }).getBuffer('image/jpeg');
}

/**
 * A palette PNG of any size written directly with zlib: cheap to make even at 30+ Mpx, and it
 * compresses to a few KB, which is exactly what a decompression bomb looks like.
 */
export function palettePng(width: number, height: number): Buffer {
  const row = Buffer.alloc(width + 1);
  for (let x = 1; x <= width; x++) row[x] = (x >> 4) & 1;
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) row.copy(raw, y * (width + 1));
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 3;
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('PLTE', Buffer.from([255, 255, 255, 200, 40, 40])),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** Decoded size of image bytes. */
export async function dimensions(bytes: Buffer): Promise<[number, number]> {
  const img = await Jimp.read(bytes);
  return [img.width, img.height];
}
