import type { PathItem } from './operation.js';

/** Where the routes are mounted: `authRoutePath`, `avatarRoutePath`. */
interface Prefixes {
  auth: string;
  avatar: string;
}

/**
 * Every operation's `operationId`, named by one rule so that a client generated from the document has
 * method names that do not change with the configuration's prefixes or the order of its routes: the
 * method, then the words of the path under its prefix (`authRoutePath`; the avatar route is `avatar`),
 * each capitalised, a `{param}` read as `By<Param>`. `GET /auth/user` is `getUser`, `POST
 * /auth/mfa/totp/setup` `postMfaTotpSetup`, `DELETE /auth/sessions/{sid}` `deleteSessionsBySid`. A
 * provider's routes are under its name, so its operations carry it (`postLocalLogin`) and two providers
 * of one kind never share one. A kind's routeDocs name no operation: an id it gave would clash between
 * two providers of the kind. Provider names that differ only in case or punctuation (`my-app`,
 * `my_app`) would give the same words: the later path's ids get `_2`, `_3`, in the document's order.
 */
export function operationIds(paths: Record<string, PathItem>, prefixes: Prefixes): Record<string, PathItem> {
  const taken = new Map<string, number>();
  const named: Record<string, PathItem> = {};
  for (const [path, item] of Object.entries(paths)) {
    const words = routeWords(path, prefixes);
    named[path] = {};
    for (const [method, operation] of Object.entries(item)) {
      const id = method + words;
      const n = (taken.get(id) ?? 0) + 1;
      taken.set(id, n);
      named[path][method] = { ...operation, operationId: n === 1 ? id : `${id}_${n}` };
    }
  }
  return named;
}

/** `/auth/sessions/{sid}` → `SessionsBySid`; `/avatar/{id}` → `AvatarById`. */
function routeWords(path: string, prefixes: Prefixes): string {
  const under = (prefix: string) => path.startsWith(`${prefix}/`) && path.slice(prefix.length + 1);
  const route = under(prefixes.auth) || (under(prefixes.avatar) ? `avatar/${under(prefixes.avatar)}` : path);
  return route
    .replace(/\{([^}]*)\}/g, ' by $1 ')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}
