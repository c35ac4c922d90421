/**
 * A short label of the browser and system a request came from, read from the User-Agent: what the session
 * list shows of each login and the passkey list of each key, so it is core rather than either feature's.
 */

/** Browsers in the order they must be tried: Edge and Opera say "Chrome" too, Chrome says "Safari". */
const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/(?:\b|Headless)Chrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
  [/^node\b|\bundici\b/i, 'Node.js'],
];

/** Systems in the order they must be tried: iPadOS and Android say "Linux" or "Mac OS X" too. */
const SYSTEMS: Array<[RegExp, string]> = [
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/**
 * "Chrome on macOS", "Firefox on Windows", "Safari on iOS", "curl"; "Unknown device" when the header
 * says nothing this rule knows. The rule is the first browser and the first system of the two lists
 * above that the header matches; nothing else of the header is kept (it is the sender's text).
 */
export function deviceLabel(userAgent: string | undefined): string {
  const ua = (userAgent ?? '').slice(0, 512);
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? 'Unknown device';
}
