import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { readForm } from '../providers/oauth2-server/http.js';
import { escapeHTML } from '../providers/oauth2-server/page.js';
import { safeEqual } from '../util/safe-equal.js';
import { issueCode, refuse } from './answer.js';
import type { ServerParts } from './parts.js';
import type { AuthorizationRequest } from './request.js';

/**
 * The consent page and its form. The request waits in the state store under a random id, bound to the user it was
 * shown to and to a form token only the page holds: another site can neither read the page (not framable, no-store)
 * nor post a decision for the user (the token, and the feature set's same-site rule for every POST).
 */

const NS = 'as-consent-ask';
const ASK_TTL_MS = 10 * 60_000;
const FORM_LIMIT = 8 * 1024;

/** A request waiting for the user's decision. */
interface Ask {
  request: AuthorizationRequest;
  userId: string;
  token: string;
}

/** Renders the consent page for `ask`, keeping the request for the form's answer. */
export async function showConsent(
  p: ServerParts,
  ctx: Context,
  ask: { request: AuthorizationRequest; client: { id: string; name: string; host?: string }; userId: string },
): Promise<void> {
  const id = randomBytes(16).toString('base64url');
  const token = randomBytes(16).toString('base64url');
  const kept: Ask = { request: ask.request, userId: ask.userId, token };
  await p.state.create(NS, id, kept, p.clock() + ASK_TTL_MS);
  page(ctx, 200);
  ctx.body = consentHTML(p, ask.client, ask.request, { id, token });
}

/** `POST <authRoutePath>/oauth2/consent`: the user's Allow or Deny. */
export async function decide(p: ServerParts, ctx: Context): Promise<void> {
  const form = await readForm(ctx, FORM_LIMIT);
  const entry = form.request ? await p.state.get<Ask>(NS, form.request) : undefined;
  const live = entry && entry.expiresAt > p.clock() ? entry : undefined;
  if (!live || !safeEqual(form.token ?? '', live.value.token)) return gone(ctx);
  const session = await p.session(ctx);
  // The page was shown to this user: another's form (a shared computer, a session changed since) decides nothing.
  if (session.user.id !== live.value.userId) return gone(ctx);
  if (!(await p.state.take(NS, form.request, live.rev))) return gone(ctx);
  const { request } = live.value;
  if (form.decision !== 'allow') {
    p.emit('grant_denied', { clientId: request.clientId, userId: session.user.id }, ctx);
    return refuse(p, ctx, request, 'access_denied', 'the user denied the request');
  }
  await p.grants.rememberConsent(session.user.id, request.clientId, request.scopes, request.resources);
  p.emit('grant_approved', grantFields(request, session.user.id), ctx);
  return issueCode(p, ctx, request, session);
}

function grantFields(request: AuthorizationRequest, userId: string): Record<string, unknown> {
  return { clientId: request.clientId, userId, scopes: request.scopes, resources: request.resources };
}

/** A form whose request is unknown, spent, expired or another user's: nothing to decide. */
function gone(ctx: Context): void {
  page(ctx, 400);
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Request expired</title></head>
<body><p>This request has expired or was already answered. Go back to the application and try again.</p></body></html>
`;
}

/** The headers of the page: not framable, not cached, no script, forms to this site only. */
function page(ctx: Context, status: number): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
}

function consentHTML(
  p: ServerParts,
  client: { id: string; name: string; host?: string },
  request: AuthorizationRequest,
  form: { id: string; token: string },
): string {
  const who = client.host
    ? `<strong>${escapeHTML(client.host)}</strong> (calls itself “${escapeHTML(client.name)}”)`
    : `<strong>${escapeHTML(client.name)}</strong>`;
  const resources = request.resources.map((r) => `<li>${escapeHTML(p.config.resources.get(r)?.name ?? r)}</li>`);
  const scopes = request.scopes.map((s) => `<li><code>${escapeHTML(s)}</code></li>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow access?</title></head>
<body><main>
<h1>Allow access?</h1>
<p>${who} asks to act for you.</p>
${resources.length ? `<p>At:</p><ul>${resources.join('')}</ul>` : ''}
${scopes.length ? `<p>With these permissions:</p><ul>${scopes.join('')}</ul>` : ''}
<p>It will be sent back to <code>${escapeHTML(new URL(request.redirectURI).origin)}</code>.</p>
<form method="post" action="${escapeHTML(`${p.places.authBase}/oauth2/consent`)}">
<input type="hidden" name="request" value="${escapeHTML(form.id)}">
<input type="hidden" name="token" value="${escapeHTML(form.token)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</main></body></html>
`;
}
