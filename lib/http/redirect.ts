/**
 * The post-login redirect policy: `from` must resolve to the origin of the service's `url`, or to
 * an http(s) URL whose host is on the allow-list. Returns the normalised absolute URL to send in
 * Location, or undefined. Relative paths resolve against `url`; the WHATWG parser turns `/\evil`
 * and `//evil` into foreign hosts, so they fail the host check like any absolute foreign URL.
 */
export function safeRedirect(from: unknown, baseUrl: string, allowedHosts: readonly string[]): string | undefined {
  if (typeof from !== 'string' || from === '' || from.length > 2048) return undefined;
  // Control characters and whitespace have no place in a URL we echo into a header.
  if (/[\u0000-\u0020\u007f]/.test(from)) return undefined;
  let target: URL;
  let base: URL;
  try {
    base = new URL(baseUrl);
    target = new URL(from, base);
  } catch {
    return undefined;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return undefined;
  if (target.username || target.password) return undefined;
  if (target.origin === base.origin) return target.href;
  const host = target.hostname.toLowerCase();
  const hostPort = target.host.toLowerCase();
  for (const allowed of allowedHosts) {
    // An entry with a port pins the port; a bare host allows any port, as in the original.
    if (
      allowed.includes(':') && !allowed.startsWith('[')
        ? allowed === hostPort
        : allowed === host || allowed === hostPort
    ) {
      return target.href;
    }
  }
  return undefined;
}
