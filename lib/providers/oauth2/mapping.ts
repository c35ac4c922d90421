import type { User } from '../../user.js';
import { goString, providerUserId } from '../../user.js';
import { providerError } from './io.js';

/** What a provider's user-info JSON maps to before the id is hashed. */
export interface RawUser {
  /** The provider's own id for the user (hashed into `<provider>_<sha1>` unless kept raw). */
  id: string;
  name?: string;
  picture?: string;
  email?: string;
  attrs?: Record<string, unknown>;
}

/** What a custom `mapUser` returns: the provider's own id (hashed by authkoa), name, picture, … */
export type MappedUser = Partial<Omit<User, 'id'>> & { id: string | number };

/** A custom mapper's user as a RawUser: fields of the wrong type are dropped, a missing id is "". */
export function rawFromMapped(m: MappedUser): RawUser {
  return {
    id: typeof m.id === 'number' ? String(m.id) : typeof m.id === 'string' ? m.id : '',
    name: typeof m.name === 'string' ? m.name : undefined,
    picture: typeof m.picture === 'string' ? m.picture : undefined,
    email: typeof m.email === 'string' ? m.email : undefined,
    attrs: m.attrs,
  };
}

/** Reads a dotted path (`data.attributes.full_name`) out of parsed JSON; undefined when absent. */
export function field(data: unknown, path: string): unknown {
  let v: unknown = data;
  for (const key of path.split('.')) {
    if (!v || typeof v !== 'object' || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** A path's value as the original's `%v` stringifier prints it; "" when absent. */
export function text(data: unknown, path: string): string {
  const v = field(data, path);
  return v !== null && typeof v === 'object' ? '' : goString(v);
}

/**
 * The final User: id `<provider>_<sha1(raw)>` (or the raw id for dev), the name or a fallback built
 * from the id, `userAttributes` copied into attrs as strings. An empty raw id is refused: hashing ""
 * would put every failed login into one shared account (the original's #301).
 */
export function finishUser(
  provider: string,
  raw: RawUser,
  data: unknown,
  userAttributes: Record<string, string>,
  opts: { rawId?: boolean; noName?: (id: string) => string; userId?: (provider: string, raw: string) => string } = {},
): User {
  if (!raw.id) throw providerError(provider, 'bad_user_info', 'user info carries no user id');
  const id = opts.rawId ? raw.id : (opts.userId ?? providerUserId)(provider, raw.id);
  const user: User = { name: raw.name || (opts.noName ?? defaultNoName)(id), id, picture: raw.picture ?? '' };
  if (raw.email) user.email = raw.email;
  const attrs: Record<string, unknown> = { ...raw.attrs };
  for (const [key, attr] of Object.entries(userAttributes)) {
    const v = field(data, key);
    if (v !== undefined && v !== null) attrs[attr] = typeof v === 'object' ? JSON.stringify(v) : goString(v);
  }
  if (Object.keys(attrs).length) user.attrs = attrs;
  return user;
}

/** `noname_` + the first six characters of the id's hash (the original's Apple rule, used where it gave none). */
function defaultNoName(id: string): string {
  return `noname_${id.slice(id.indexOf('_') + 1).slice(0, 6)}`;
}
