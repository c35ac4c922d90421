/**
 * The cookies of one app, kept by the client where there is no browser to keep them (Node, a worker):
 * what the answers set is sent back as a browser would, by name and path, and a cookie the server clears
 * (`Max-Age=0`, an `Expires` in the past, an empty value) is gone. One jar serves one origin, the
 * client's `baseURL`, so domains are not compared.
 */
interface Kept {
  value: string;
  path: string;
  /** When it expires (ms since the epoch); undefined for a session cookie. */
  expires?: number;
}

export class CookieJar {
  /** By `name` + NUL + `path`: a browser keeps two cookies of one name on different paths apart. */
  readonly #cookies = new Map<string, Kept & { name: string }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Takes the `Set-Cookie` lines of an answer to a request for `requestPath`. */
  store(lines: readonly string[], requestPath: string): void {
    for (const line of lines) {
      const parsed = parseSetCookie(line, requestPath, this.now());
      if (!parsed) continue;
      const key = `${parsed.name}\0${parsed.path}`;
      if (parsed.expires !== undefined && parsed.expires <= this.now()) this.#cookies.delete(key);
      else this.#cookies.set(key, parsed);
    }
  }

  /** The `Cookie` header for a request to `path` ('' when nothing applies), longer paths first as browsers send them. */
  header(path: string): string {
    return this.#live()
      .filter((c) => pathMatches(path, c.path))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** The value of cookie `name` sent to `path`, or undefined. */
  get(name: string, path = '/'): string | undefined {
    return this.#live().find((c) => c.name === name && pathMatches(path, c.path))?.value;
  }

  #live() {
    const now = this.now();
    return [...this.#cookies.values()].filter((c) => c.expires === undefined || c.expires > now);
  }
}

/** One `Set-Cookie` line as kept: name, value, path (RFC 6265's default path when none) and expiry. */
function parseSetCookie(line: string, requestPath: string, now: number): (Kept & { name: string }) | undefined {
  const [pair = '', ...attrs] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq <= 0) return undefined;
  const cookie: Kept & { name: string } = { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), path: defaultPath(requestPath) };
  let maxAge: number | undefined;
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase();
    const value = i < 0 ? '' : attr.slice(i + 1).trim();
    if (key === 'path' && value.startsWith('/')) cookie.path = value;
    else if (key === 'max-age' && /^-?\d+$/.test(value)) maxAge = Number(value);
    else if (key === 'expires' && !Number.isNaN(Date.parse(value))) cookie.expires = Date.parse(value);
  }
  // Max-Age wins over Expires (RFC 6265 5.3); an emptied value is how some servers clear a cookie.
  if (maxAge !== undefined) cookie.expires = now + maxAge * 1000;
  if (cookie.value === '') cookie.expires = now;
  return cookie;
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
