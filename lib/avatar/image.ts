/**
 * Image facts read from the first bytes, without decoding: the sniffed type (the route serves this,
 * never an upstream Content-Type) and the pixel dimensions (the 16 Mpx cap is enforced on them before
 * any decoder allocates a bitmap, which is what stops decompression bombs).
 */

/**
 * Types the route will serve, the raster types browsers show (no SVG, which can carry script); anything else stored is
 * answered 415.
 */
export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'image/bmp' | 'image/x-icon';

/** Returns the image type from magic bytes, or undefined (HTML, SVG, text, unknown). */
export function sniffImage(b: Uint8Array): ImageType | undefined {
  const at = (offset: number, ...bytes: number[]) => bytes.every((v, i) => b[offset + i] === v);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50)) return 'image/webp';
  if (at(0, 0x42, 0x4d)) return 'image/bmp';
  if (at(0, 0x00, 0x00, 0x01, 0x00)) return 'image/x-icon';
  return undefined;
}

export interface ImageHeader {
  type: ImageType;
  width: number;
  height: number;
}

/**
 * Reads width and height from the header of a PNG, JPEG, GIF, WebP or BMP. Undefined when the type
 * is not one of those or the header is truncated or malformed: such bytes are not accepted as avatars.
 */
export function readHeader(b: Buffer): ImageHeader | undefined {
  const type = sniffImage(b);
  const dims = (() => {
    switch (type) {
      case 'image/png':
        return b.length >= 24 && b.toString('latin1', 12, 16) === 'IHDR'
          ? [b.readUInt32BE(16), b.readUInt32BE(20)]
          : undefined;
      case 'image/gif':
        return b.length >= 10 ? [b.readUInt16LE(6), b.readUInt16LE(8)] : undefined;
      case 'image/bmp':
        return b.length >= 26 ? [b.readInt32LE(18), Math.abs(b.readInt32LE(22))] : undefined;
      case 'image/jpeg':
        return jpegSize(b);
      case 'image/webp':
        return webpSize(b);
      default:
        return undefined;
    }
  })();
  if (!type || !dims) return undefined;
  const [width, height] = dims as [number, number];
  if (!(width > 0 && height > 0)) return undefined;
  return { type, width, height };
}

/** Walks JPEG segments to the first SOFn marker, which carries the frame size. */
function jpegSize(b: Buffer): [number, number] | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2; // markers without a length
      continue;
    }
    const len = b.readUInt16BE(i + 2);
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) return [b.readUInt16BE(i + 7), b.readUInt16BE(i + 5)];
    if (len < 2) return undefined;
    i += 2 + len;
  }
  return undefined;
}

/** WebP: lossy (VP8), lossless (VP8L) or extended (VP8X) chunk. */
function webpSize(b: Buffer): [number, number] | undefined {
  if (b.length < 30) return undefined;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return [b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff];
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return [(bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1];
  }
  if (chunk === 'VP8X') return [1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3)];
  return undefined;
}
