/**
 * Known option names, checked so that a misspelled option is a start-up error instead of a default
 * silently kept. `optionNames<T>({...})` takes every key of T and nothing else (the compiler checks
 * both ways), so a list cannot drift from the interface it guards.
 */
export function optionNames<T>(keys: Record<keyof T, true>): readonly string[] {
  return Object.keys(keys);
}

/** Why no provider entry takes a redirect URI (only the local OAuth2 server's `redirectURIs`). */
const CALLBACK_NOTE = 'callback URLs are made from the top-level url option: <url>/auth/<provider name>/callback';

/**
 * Names people bring from other libraries (passport, simple-oauth2, jsonwebtoken, koa-session), keyed
 * by the name lowercased without `_` and `-`. Edit distance cannot find these: `clientId` is nearer to
 * `client` than to `cid`, and `client_secret` is near nothing. `to` lists our names in order of
 * preference; the first one the checked object knows is suggested (apple takes `clientId`, the OAuth2
 * kinds `cid`). `note` answers a name that has no counterpart here.
 */
const ALIASES: Readonly<Record<string, { to?: readonly string[]; note?: string }>> = {
  clientid: { to: ['cid', 'clientId'] },
  appid: { to: ['cid', 'clientId'] },
  consumerkey: { to: ['cid'] },
  clientsecret: { to: ['csecret'] },
  appsecret: { to: ['csecret'] },
  consumersecret: { to: ['csecret'] },
  scope: { to: ['scopes'] },
  redirecturi: { to: ['redirectURIs'], note: CALLBACK_NOTE },
  redirecturl: { to: ['redirectURIs'], note: CALLBACK_NOTE },
  callbackurl: { to: ['redirectURIs'], note: CALLBACK_NOTE },
  callbackuri: { to: ['redirectURIs'], note: CALLBACK_NOTE },
  authorizationurl: { to: ['endpoint'] },
  authorizeurl: { to: ['endpoint'] },
  authurl: { to: ['endpoint'] },
  tokenurl: { to: ['endpoint'] },
  userinfourl: { to: ['infoURL'] },
  profileurl: { to: ['infoURL'] },
  issuerurl: { to: ['issuer'] },
  discoveryurl: { to: ['issuer'] },
  expiresin: { to: ['tokenDuration'] },
  maxage: { to: ['cookieDuration'] },
  jwtsecret: { to: ['secret'] },
  secretkey: { to: ['secret'] },
  cookiename: { to: ['jwtCookieName'] },
  domain: { to: ['cookieDomain'] },
  secure: { to: ['secureCookies'] },
  verify: { to: ['checker'] },
  bottoken: { to: ['token'] },
  privatekeylocation: { to: ['privateKeyPath'] },
};

/**
 * The message for an option that is not among `known`: names it and the option probably meant, from
 * the alias table first (another library's name), then by edit distance (a typo, a case slip).
 */
export function unknownOption(key: string, known: readonly string[]): string {
  const folded = key.toLowerCase().replace(/[_-]/g, '');
  const alias = Object.hasOwn(ALIASES, folded) ? ALIASES[folded] : undefined; // not Object.prototype's "constructor"
  const guess = alias?.to?.find((name) => known.includes(name)) ?? (alias?.note ? undefined : closest(key, known));
  if (guess) return `unknown option "${key}" (did you mean "${guess}"?)`;
  return `unknown option "${key}"${alias?.note ? ` (${alias.note})` : ''}`;
}

/** Throws a TypeError (prefixed with `at`) for the first key of `given` not in `known`. */
export function checkOptionNames(given: object, known: readonly string[], at: string): void {
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) throw new TypeError(`${at}${unknownOption(key, known)}`);
  }
}

/** The candidate within a small edit distance of `word` (case ignored), the nearest one. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(w.length / 4)) + 1;
  for (const c of candidates) {
    const d = distance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance with adjacent transpositions counted as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
      rows[i][j] = d;
    }
  }
  return rows[a.length][b.length];
}
