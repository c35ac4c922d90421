/**
 * The cookies of one app, kept by the client where there is no browser to keep them (Node, a worker):
 * what the answers set is sent back as a browser would, by RFC 6265's domain and path rules, and a cookie
 * the server clears (`Max-Age=0`, an `Expires` in the past, an empty value) is gone.
 *
 * Domains matter even though a client talks to one origin: an answer must not be able to plant a cookie
 * for another site, nor one that the jar then mistakes for the app's own (a `JWT` with `Domain=evil.example`
 * replacing the session). A `Set-Cookie` whose `Domain` the request's host does not domain-match is
 * ignored whole, as browsers ignore it. In a browser, `readCookie` reads the XSRF token out of `document.cookie`.
 */
interface Kept {
  name: string;
  value: string;
  /** The host it was set by (host-only), or the `Domain` it applies to with its subdomains. */
  domain: string;
  hostOnly: boolean;
  path: string;
  /** When it expires (ms since the epoch); undefined for a session cookie. */
  expires?: number;
}

export class CookieJar {
  /** By name, domain and path (RFC 6265 5.3 step 11): a browser keeps cookies differing in any of them apart. */
  readonly #cookies = new Map<string, Kept>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Takes the `Set-Cookie` lines of an answer to a request for `url`. */
  store(lines: readonly string[], url: URL): void {
    const now = this.now();
    for (const line of lines) {
      const parsed = parseSetCookie(line, url, now);
      if (!parsed) continue;
      const key = `${parsed.name}\0${parsed.domain}\0${parsed.path}`;
      if (parsed.expires !== undefined && parsed.expires <= now) this.#cookies.delete(key);
      else this.#cookies.set(key, parsed);
    }
  }

  /** The `Cookie` header for a request to `url` ('' when nothing applies), longer paths first as browsers send them. */
  header(url: URL): string {
    return this.#sentTo(url)
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** The value of cookie `name` a request to `url` carries, or undefined. */
  get(name: string, url: URL): string | undefined {
    return this.#sentTo(url).find((c) => c.name === name)?.value;
  }

  /** The live cookies a request to `url` carries: its host and path match (RFC 6265 5.4). */
  #sentTo(url: URL): Kept[] {
    const now = this.now();
    const host = url.hostname.toLowerCase();
    return [...this.#cookies.values()].filter(
      (c) =>
        (c.expires === undefined || c.expires > now) &&
        (c.hostOnly ? host === c.domain : domainMatches(host, c.domain)) &&
        pathMatches(url.pathname, c.path),
    );
  }
}

/**
 * One `Set-Cookie` line as kept, or undefined when it is to be ignored: no name, or a `Domain` the request
 * host does not domain-match. Without `Path`, RFC 6265's default path; `Max-Age` wins over `Expires`.
 */
function parseSetCookie(line: string, url: URL, now: number): Kept | undefined {
  const [pair = '', ...attrs] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq <= 0) return undefined;
  const host = url.hostname.toLowerCase();
  const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
  const cookie: Kept = { name, value, domain: host, hostOnly: true, path: defaultPath(url.pathname) };
  let maxAge: number | undefined;
  let domain: string | undefined;
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase();
    const av = i < 0 ? '' : attr.slice(i + 1).trim();
    if (key === 'path' && av.startsWith('/')) cookie.path = av;
    else if (key === 'max-age' && /^-?\d+$/.test(av)) maxAge = Number(av);
    else if (key === 'expires' && !Number.isNaN(Date.parse(av))) cookie.expires = Date.parse(av);
    // 5.2.3: an empty Domain is ignored; a leading dot is dropped; the last one counts.
    else if (key === 'domain' && av !== '') domain = av.replace(/^\./, '').toLowerCase();
  }
  // 5.3 step 6: a Domain left empty (`Domain=.`) is no Domain.
  if (domain) {
    // 5.3 steps 5-6: a suffix is refused unless it is the host itself (then the cookie stays host-only).
    if (isSuffixLike(domain) ? domain !== host : !domainMatches(host, domain)) return undefined;
    if (!isSuffixLike(domain)) Object.assign(cookie, { domain, hostOnly: false });
  }
  if (maxAge !== undefined) cookie.expires = now + maxAge * 1000;
  // An emptied value is how some servers clear a cookie.
  if (cookie.value === '') cookie.expires = now;
  return cookie;
}

/**
 * RFC 6265 5.1.3: `host` is `domain`, or a name under it; an IP address matches only itself. A URL's
 * hostname is canonical already: lower case, IPv4 in dotted decimal, IPv6 in brackets.
 */
function domainMatches(host: string, domain: string): boolean {
  if (host === domain) return true;
  return !isIpAddress(host) && host.endsWith(`.${domain}`);
}

function isIpAddress(host: string): boolean {
  return host.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * A `Domain` that would reach other sites (5.3 step 5 refuses public suffixes). Without the public suffix
 * list the jar refuses what is certainly one: a single label (`com`, `localhost`) or an IP address. A
 * two-label suffix such as `co.uk` is not recognised; the jar only ever talks to the client's own app.
 */
function isSuffixLike(domain: string): boolean {
  return !domain.includes('.') || isIpAddress(domain);
}

/** RFC 6265 5.1.4: the directory of the request path. */
function defaultPath(requestPath: string): string {
  const slash = requestPath.lastIndexOf('/');
  return slash <= 0 ? '/' : requestPath.slice(0, slash);
}

/** RFC 6265 5.1.4: `cookiePath` is `path` or a prefix of it ending at a `/`. */
function pathMatches(path: string, cookiePath: string): boolean {
  if (path === cookiePath) return true;
  if (!path.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || path[cookiePath.length] === '/';
}

/** The value of cookie `name` in a `document.cookie` string (decoded; raw when it does not decode), or undefined. */
export function readCookie(cookies: string, name: string): string | undefined {
  for (const part of cookies.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}
