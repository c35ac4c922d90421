import type { Context } from 'koa';
import { readCookie } from '../../providers/kit.js';

/**
 * The two cookies account linking gives a browser, each the id of an entry of offers.ts: `authkoa-link` (a link
 * intent, from `?link=1` to the provider's callback) and `authkoa-link-offer` (an offer by address, from
 * `account_exists` to the account's login). HttpOnly, on the auth routes only, SameSite=Lax so that the top-level
 * navigation back from a provider carries them.
 */
export const INTENT_COOKIE = 'authkoa-link';
export const OFFER_COOKIE = 'authkoa-link-offer';

export interface LinkCookies {
  read(ctx: Context, name: string): string | undefined;
  set(ctx: Context, name: string, value: string, ttlMs: number): void;
  clear(ctx: Context, name: string): void;
}

export function linkCookies(authRoutePath: string, secure: boolean): LinkCookies {
  const attributes = `Path=${authRoutePath || '/'}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  return {
    read: (ctx, name) => readCookie(ctx, name) || undefined,
    set(ctx, name, value, ttlMs) {
      ctx.append('Set-Cookie', `${name}=${value}; ${attributes}; Max-Age=${Math.ceil(ttlMs / 1000)}`);
    },
    clear(ctx, name) {
      ctx.append('Set-Cookie', `${name}=; ${attributes}; Max-Age=0`);
    },
  };
}
