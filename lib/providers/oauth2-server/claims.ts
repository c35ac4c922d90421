import type { ServerUser } from './server-user.js';

/**
 * What an OpenID provider tells a client about its user: the standard claims (OpenID Connect Core
 * §5.1) that the `profile`, `email`, `address` and `phone` scopes stand for (§5.4), and the ones a
 * `claims` request parameter names (§5.5). Nothing else leaves: a claim the application's `claims`
 * function gives but the request did not ask for is dropped.
 */

/** The standard claims, as the application's `claims` function gives them. */
export interface StandardClaims {
  name?: string;
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  nickname?: string;
  preferred_username?: string;
  profile?: string;
  picture?: string;
  website?: string;
  gender?: string;
  birthdate?: string;
  zoneinfo?: string;
  locale?: string;
  updated_at?: number;
  email?: string;
  email_verified?: boolean;
  address?: {
    formatted?: string;
    street_address?: string;
    locality?: string;
    region?: string;
    postal_code?: string;
    country?: string;
  };
  phone_number?: string;
  phone_number_verified?: boolean;
}

/**
 * Gives a user's standard claims; the server keeps only those the request's scopes and `claims` ask for. `U` is who
 * signs in: the local server's checker's user, or the app's own `User` at the in-app authorization server.
 */
export type ClaimsFunction<U extends ServerUser = ServerUser> = (
  user: U,
  request: { scopes: string[]; client: string },
) => StandardClaims | Promise<StandardClaims>;

/** The claims each scope stands for (Core §5.4). */
export const SCOPE_CLAIMS: Readonly<Record<string, readonly (keyof StandardClaims)[]>> = {
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** Every claim the provider may give: discovery's `claims_supported` lists these and the id_token's own. */
export const STANDARD_CLAIMS: readonly string[] = Object.values(SCOPE_CLAIMS).flat();

/** What discovery's `claims_supported` lists: an id_token's own claims, then every standard claim. */
export const CLAIMS_SUPPORTED: readonly string[] = [
  ...['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'sid'],
  ...STANDARD_CLAIMS,
];

/** The claims a `claims` request parameter names, per place (Core §5.5); values and `essential` are hints. */
export interface ClaimsRequest {
  userinfo: string[];
  id_token: string[];
}

/** Reads the `claims` parameter; undefined when it is not a JSON object of `{ userinfo?, id_token? }` objects. */
export function parseClaimsRequest(text: string | undefined): ClaimsRequest | undefined {
  if (text === undefined) return { userinfo: [], id_token: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  const names = (member: unknown): string[] | undefined =>
    member === undefined || member === null ? [] : isObject(member) ? Object.keys(member) : undefined;
  const userinfo = names(parsed.userinfo);
  const idToken = names(parsed.id_token);
  return userinfo && idToken ? { userinfo, id_token: idToken } : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The default `claims`: the user's profile, a missing name filled with the id. A missing picture is the identicon of
 * the local server at `base`; without `base` (the in-app server, whose users' pictures are the app's avatar links
 * already) it is left out.
 */
export function defaultClaims(base?: string): ClaimsFunction {
  return (u) => {
    const picture = u.picture || (base === undefined ? undefined : `${base}/avatar?user=${encodeURIComponent(u.id)}`);
    return {
      name: u.name || u.id,
      preferred_username: u.id,
      ...(picture ? { picture } : {}),
      ...(u.email ? { email: u.email } : {}),
    };
  };
}

/** The claims allowed at one place: those of the granted scopes and those the `claims` parameter names there. */
export function pickClaims(all: StandardClaims, scopes: string[], named: string[]): Record<string, unknown> {
  const allowed = new Set<string>(named.filter((n) => STANDARD_CLAIMS.includes(n)));
  for (const s of scopes) for (const c of SCOPE_CLAIMS[s] ?? []) allowed.add(c);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(all)) if (allowed.has(k) && v !== undefined && v !== null) out[k] = v;
  return out;
}

/** A scope string's scopes. */
export function scopesOf(scope: string | undefined): string[] {
  return (scope ?? '').split(' ').filter(Boolean);
}
