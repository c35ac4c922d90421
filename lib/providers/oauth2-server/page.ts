import type { Context } from 'koa';

/**
 * The login page of the local OAuth2 server: what it shows and the contract a custom page keeps.
 * The built-in page is plain HTML with no script, so it works with any browser, screen reader or
 * password manager; a custom `loginPageHandler` may look like anything as long as it posts the same
 * three fields back to `action`.
 */

/** What a login page needs to render its form. */
export interface LoginPage {
  /** Where the form posts (the authorize URL with the client's original query). */
  action: string;
  /** Must be posted back as the `csrf_token` field; a post without it is refused. */
  csrfToken: string;
  /** The client asking for the sign-in (its id). */
  clientId: string;
  /** A message for the user after a failed attempt ("Wrong user name or password."). */
  error?: string;
  /** The user name of the failed attempt, to fill the field again. */
  username?: string;
}

/**
 * Renders the login page into `ctx` (status, type, body). The form must POST `username`,
 * `password` and `csrf_token` (page.csrfToken) to `page.action`.
 */
export type LoginPageHandler = (ctx: Context, page: LoginPage) => void | Promise<void>;

/** Form field names a login page posts. */
export const FIELDS = { username: 'username', password: 'password', csrf: 'csrf_token' } as const;

export const escapeHTML = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page's CSP. `form-action` lists the client's redirect origin too: after the post, the browser
 * follows redirects to the client, and Chromium checks form-action along that whole chain.
 */
export function pageCSP(redirectOrigin: string): string {
  return (
    `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${redirectOrigin}; ` +
    `frame-ancestors 'none'; base-uri 'none'`
  );
}

/** The built-in page: labelled fields, the error announced to assistive technology, no script. */
export const defaultLoginPage: LoginPageHandler = (ctx, page) => {
  const err = page.error ? `<p id="login-error" class="error" role="alert">${escapeHTML(page.error)}</p>\n` : '';
  const described = page.error ? ' aria-describedby="login-error" aria-invalid="true"' : '';
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:24em;margin:3em auto;padding:0 1em}
label{display:block;margin:.8em 0 .2em}input{font:inherit;width:100%;box-sizing:border-box;padding:.3em}
button{font:inherit;margin-top:1.2em;padding:.3em 1.2em}.error{color:#a00;font-weight:bold}</style></head>
<body><main>
<h1>Sign in</h1>
<p>to continue to <strong>${escapeHTML(page.clientId)}</strong></p>
${err}<form method="post" action="${escapeHTML(page.action)}">
<input type="hidden" name="${FIELDS.csrf}" value="${escapeHTML(page.csrfToken)}">
<label for="username">User name</label>
<input id="username" name="${FIELDS.username}" autocomplete="username" required autofocus \
value="${escapeHTML(page.username ?? '')}"${described}>
<label for="password">Password</label>
<input id="password" name="${FIELDS.password}" type="password" autocomplete="current-password" required${described}>
<button type="submit">Sign in</button>
</form>
</main></body></html>
`;
};
