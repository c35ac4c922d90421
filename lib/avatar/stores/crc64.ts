/**
 * CRC-64/XZ (Go's crc64.ECMA table with Checksum: reflected, init and xor-out all ones). The file
 * store partitions avatars by this checksum modulo 100, exactly as the original, so an existing
 * avatar folder can be used in place.
 */
const POLY = 0xc96c5795d7870f42n; // reflected ECMA-182
const MASK = 0xffffffffffffffffn;

const TABLE: bigint[] = (() => {
  const t: bigint[] = [];
  for (let i = 0n; i < 256n; i++) {
    let crc = i;
    for (let k = 0; k < 8; k++) crc = crc & 1n ? (crc >> 1n) ^ POLY : crc >> 1n;
    t.push(crc);
  }
  return t;
})();

/** Returns the CRC-64/XZ of the bytes (a string is taken as UTF-8). */
export function crc64(input: string | Uint8Array): bigint {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  let crc = MASK;
  for (const b of bytes) crc = TABLE[Number((crc ^ BigInt(b)) & 0xffn)] ^ (crc >> 8n);
  return crc ^ MASK;
}

/** The two-digit partition folder ("00".."99") the original uses for a 40-hex avatar hash. */
export function partition(hash: string): string {
  return String(crc64(hash) % 100n).padStart(2, '0');
}
