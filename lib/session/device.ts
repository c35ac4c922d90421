import { isIP } from 'node:net';
import { clientKey } from '../http/client-key.js';

/**
 * What a session list shows of where a login came from: a short label of the browser and system read
 * from the User-Agent, and the client's network, never its address.
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

/**
 * The client's network as a session list shows it: an IPv4 address by its /24 (`203.0.113.0/24`), an
 * IPv6 one by its /64; '' when the address is not one. Enough to tell "home" from "abroad", not to
 * find anyone.
 */
export function networkOf(ip: string | undefined): string {
  const key = clientKey(ip);
  if (key === 'invalid') return '';
  if (isIP(key) === 4) return `${key.split('.').slice(0, 3).join('.')}.0/24`;
  return key; // already the /64
}
