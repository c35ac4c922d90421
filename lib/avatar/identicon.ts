import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

/**
 * A deterministic identicon: a mirrored 5×5 grid whose cells and colour come from sha256 of the
 * user id, encoded here as a two-colour palette PNG (a few hundred bytes, ~1 ms, no image library
 * and no worker needed). The original used rrivera/identicon; its exact pixels are not reproduced.
 */
export function identicon(userId: string, size = 300): Buffer {
  if (!Number.isInteger(size) || size < 10 || size > 2048)
    throw new RangeError('identicon size must be an integer in 10..2048');
  const hash = createHash('sha256').update(`authkoa:${userId}`).digest();
  const cells = cellsOf(hash);
  const fg = colourOf(hash);
  const cell = Math.floor(size / 6);
  const margin = Math.floor((size - cell * 5) / 2);

  // One filter byte (0 = none) then one palette index per pixel, for each row.
  const raw = Buffer.alloc((size + 1) * size);
  for (let y = 0; y < size; y++) {
    const row = y * (size + 1);
    const gy = Math.floor((y - margin) / cell);
    if (gy < 0 || gy > 4 || y < margin) continue;
    for (let x = 0; x < size; x++) {
      const gx = Math.floor((x - margin) / cell);
      if (x >= margin && gx >= 0 && gx <= 4 && cells[gy * 5 + gx]) raw[row + 1 + x] = 1;
    }
  }
  return png(size, size, [[0xf0, 0xf0, 0xf0], fg], raw);
}

/** 15 bits choose the left three columns; the right two mirror them. */
function cellsOf(hash: Buffer): boolean[] {
  const out = new Array<boolean>(25).fill(false);
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 3; x++) {
      const bit = y * 3 + x;
      const on = ((hash[bit >> 3] >> (bit & 7)) & 1) === 1;
      out[y * 5 + x] = on;
      out[y * 5 + (4 - x)] = on;
    }
  }
  return out;
}

/** A saturated, mid-lightness colour from the hash (HSL → RGB), readable on the light background. */
function colourOf(hash: Buffer): [number, number, number] {
  const h = ((hash[28] << 8) | hash[29]) % 360;
  const s = 0.45 + (hash[30] / 255) * 0.25;
  const l = 0.4 + (hash[31] / 255) * 0.15;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const hp = h / 60;
  const x = c * (1 - Math.abs((hp % 2) - 1));
  const [r, g, b] =
    hp < 1 ? [c, x, 0] : hp < 2 ? [x, c, 0] : hp < 3 ? [0, c, x] : hp < 4 ? [0, x, c] : hp < 5 ? [x, 0, c] : [c, 0, x];
  const m = l - c / 2;
  return [r, g, b].map((v) => Math.round((v + m) * 255)) as [number, number, number];
}

/** Minimal PNG writer: 8-bit palette image, one IDAT. */
function png(width: number, height: number, palette: number[][], raw: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 3; // palette colour
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('PLTE', Buffer.from(palette.flat())),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
