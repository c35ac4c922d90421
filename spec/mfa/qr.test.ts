import test from 'ava';
import jsqr from 'jsqr';
import { qrDataURL } from '../../lib/mfa/qr.js';

// jsqr is CommonJS whose typings declare an ES default export: under NodeNext the default import is
// module.exports, which jsqr also exposes as its `default` property, so this is typed and works at run time.
const jsQR = jsqr.default;

const DATA_URL_PREFIX = 'data:image/svg+xml;base64,';

interface Raster {
  width: number;
  height: number;
  rgba: Uint8ClampedArray;
}

/**
 * Rasterizes the SVG uqr draws, 1 px per SVG unit: a white rect over the whole viewBox, then one black
 * path of unit squares `Mx,yh<s>v<s>h-<s>z`. Fails on anything else in the SVG, so a change in what
 * uqr draws breaks this test loudly rather than decoding a blank image.
 */
function rasterize(svg: string): Raster {
  const shape =
    /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 (\d+) (\d+)"><rect fill="white" width="\1" height="\2"\/><path fill="black" d="([^"]*)"\/><\/svg>$/.exec(
      svg,
    );
  if (!shape) throw new Error(`unexpected SVG from uqr: ${svg.slice(0, 200)}`);
  const width = Number(shape[1]);
  const height = Number(shape[2]);
  const rgba = new Uint8ClampedArray(width * height * 4).fill(255);
  const path = shape[3]!;
  const square = /M(\d+),(\d+)h(\d+)v\3h-\3z/gy;
  let match: RegExpExecArray | null;
  let consumed = 0;
  while ((match = square.exec(path))) {
    const [x, y, size] = [Number(match[1]), Number(match[2]), Number(match[3])];
    for (let row = y; row < y + size; row++) {
      for (let col = x; col < x + size; col++) {
        const at = (row * width + col) * 4;
        rgba[at] = rgba[at + 1] = rgba[at + 2] = 0;
      }
    }
    consumed = square.lastIndex;
  }
  if (consumed !== path.length)
    throw new Error(`unexpected path command at ${consumed}: ${path.slice(consumed, consumed + 40)}`);
  return { width, height, rgba };
}

function svgOf(dataURL: string): string {
  return Buffer.from(dataURL.slice(DATA_URL_PREFIX.length), 'base64').toString('utf8');
}

function decode(dataURL: string): string | undefined {
  const { width, height, rgba } = rasterize(svgOf(dataURL));
  return jsQR(rgba, width, height)?.data;
}

const URL_A =
  'otpauth://totp/Example%20Co:ann%2Bmfa%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Example%20Co&algorithm=SHA1&digits=6&period=30';
const URL_B =
  'otpauth://totp/Example%20Co:bob%40example.com?secret=KRUGS4ZANFZSAYJAORSXG5BAONSWG4TF&issuer=Example%20Co&algorithm=SHA1&digits=6&period=30';

test('qrDataURL gives a base64 SVG data URL that an independent decoder (jsqr) reads back as the same otpauth URL', async (t) => {
  const dataURL = await qrDataURL(URL_A);
  t.true(dataURL.startsWith(DATA_URL_PREFIX));
  t.regex(dataURL.slice(DATA_URL_PREFIX.length), /^[A-Za-z0-9+/]+=*$/);
  t.is(decode(dataURL), URL_A);
});

test('qrDataURL of different text decodes to that text, not the other', async (t) => {
  const [a, b] = await Promise.all([qrDataURL(URL_A), qrDataURL(URL_B)]);
  t.not(a, b);
  t.is(decode(b), URL_B);
  t.not(decode(b), URL_A);
});

test('qrDataURL leaves a 4-module quiet zone of white around the code', async (t) => {
  const svg = svgOf(await qrDataURL(URL_A));
  const { width, height, rgba } = rasterize(svg);
  const squares = [...svg.matchAll(/M(\d+),(\d+)h(\d+)/g)].map(
    (m) => [Number(m[1]), Number(m[2]), Number(m[3])] as const,
  );
  const moduleSize = squares[0]![2];
  const quiet = 4 * moduleSize;
  t.is(Math.min(...squares.map(([x]) => x)), quiet, 'first dark column is 4 modules in');
  t.is(Math.min(...squares.map(([, y]) => y)), quiet, 'first dark row is 4 modules in');
  t.is(width - Math.max(...squares.map(([x]) => x + moduleSize)), quiet, 'last dark column is 4 modules from the edge');
  t.is(height - Math.max(...squares.map(([, y]) => y + moduleSize)), quiet, 'last dark row is 4 modules from the edge');
  const darkPixels = rgba.filter((v, i) => i % 4 === 0 && v === 0).length;
  t.true(darkPixels > 0);
});

test('qrDataURL refuses empty or non-string text with a TypeError', async (t) => {
  await t.throwsAsync(qrDataURL(''), { instanceOf: TypeError, message: /text/ });
  await t.throwsAsync(qrDataURL(undefined as unknown as string), { instanceOf: TypeError, message: /text/ });
});
