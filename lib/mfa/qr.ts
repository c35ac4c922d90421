/**
 * A data: URL (image/svg+xml, base64) of a QR code of `text` that a phone camera can scan, with a
 * 4-module quiet zone (the QR specification's minimum; scanners fail to find a code without it) and
 * medium error correction (15% of the code may be unreadable, e.g. glare on a screen). SVG scales to any
 * size without blurring the modules; the page sets the size it is shown at. `uqr` is imported here, on
 * first use, so an app that does not enable the second factor never loads it.
 */
export async function qrDataURL(text: string): Promise<string> {
  if (typeof text !== 'string' || text === '') throw new TypeError('qrDataURL: text must be a non-empty string');
  const { renderSVG } = await import('uqr');
  const svg = renderSVG(text, { border: 4, ecc: 'M' });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
