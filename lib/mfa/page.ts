import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { escapeHTML } from '../providers/oauth2-server/page.js';

/**
 * The built-in second-step page: where a login that ended in a browser navigation (OAuth2 callbacks, the
 * dev server, an email link, a login with a permitted `from`) lands when a second factor is due. It asks
 * for a code from the authenticator app, a recovery code or a passkey, or walks a user that `mfa.required`
 * names through setting the app up; then it goes on to `next`. Its script (nonce'd) makes its requests with
 * the `authkoa/client` bundle it loads from `<authRoutePath>/mfa/client.js` (client-script.ts); the code forms
 * also post without them, as plain forms.
 */

/** What the second-step page shows. */
export interface MfaPageInput {
  /** The auth routes' prefix: the page posts to `<authRoutePath>/mfa/…`. */
  authRoutePath: string;
  /** The factors the pending login may answer with: `totp`, `recovery`, `passkey`. */
  factors: string[];
  /** The pending login must set up TOTP first (mfa.required, no factor yet). */
  enroll: boolean;
  /** The browser has a pending login. */
  pending: boolean;
  /** The browser's pending login is too old (or not valid): the page says to log in again. */
  expired: boolean;
  /** Where to go once the second step passed: a `from` the redirect policy permits; undefined: '/'. */
  next: string | undefined;
}

/** Renders the built-in second-step page into `ctx`: never cached, never framed, its own strict CSP. */
export function sendMfaPage(ctx: Context, input: MfaPageInput): void {
  const nonce = randomBytes(16).toString('base64');
  const next = goesTo(input.next);
  ctx.set('Content-Security-Policy', mfaPageCSP(nonce, next));
  ctx.set('Cache-Control', 'no-store');
  // Not 'no-referrer': the forms' POSTs would then carry `Origin: null`, which the routes refuse.
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.status = 200;
  ctx.type = 'text/html; charset=utf-8';
  const base = `${input.authRoutePath.replace(/\/+$/, '')}/mfa`;
  const main = !input.pending
    ? noLogin(input.expired)
    : input.enroll
      ? enrollSteps()
      : answerSteps(base, input.factors);
  const authPath = input.authRoutePath.replace(/\/+$/, '');
  // A function, not a string, as the replacement: `$'` or `$&` in `next` must stay as they are.
  const script = input.pending
    ? `<script nonce="${nonce}" src="${escapeHTML(base)}/client.js"></script>\n` +
      `<script nonce="${nonce}">${PAGE_SCRIPT.replace('__CONFIG__', () => scriptJSON({ authPath, next }))}</script>\n`
    : '';
  ctx.body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Two-step login</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
<h1>Two-step login</h1>
${main}
<p id="mfa-error" class="error" aria-live="assertive"></p>
</main>
${script}</body>
</html>
`;
}

/**
 * The page's policy: nothing but its own nonce'd scripts (the client bundle and its own) and style, requests to its
 * own origin, the QR
 * code as a data: image. `form-action` also lists the origin of `next`: without the script the code
 * forms post plainly, and Chromium checks form-action along the redirect to `next` too.
 */
function mfaPageCSP(nonce: string, next: string): string {
  let formAction = "'self'";
  if (/^https?:\/\//i.test(next)) formAction += ` ${new URL(next).origin}`; // goesTo() made sure it parses
  return (
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; ` +
    `img-src data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`
  );
}

/**
 * Where the page goes once passed: `next` when it is an http(s) URL or a path on this site, else '/' (never
 * `javascript:`).
 */
function goesTo(next: string | undefined): string {
  if (next === undefined) return '/';
  if (/^\/(?![/\\])/.test(next)) return next;
  try {
    return /^https?:$/.test(new URL(next).protocol) ? next : '/';
  } catch {
    return '/';
  }
}

/**
 * JSON that is safe inside a <script> element: no `</script>`, no `<!--`, no line separators JavaScript once choked on.
 */
function scriptJSON(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** No pending login (none, expired or not valid): say so and where to start again. */
function noLogin(expired: boolean): string {
  const why = expired ? 'This login took too long or is no longer valid.' : 'There is no login to finish here.';
  return `<p id="mfa-none">${why} Please log in again.</p>
<p><a href="/">Go to the start page</a></p>`;
}

/** The forms for the factors the pending login may answer with. */
function answerSteps(base: string, factors: string[]): string {
  const parts: string[] = [];
  if (factors.includes('totp')) {
    parts.push(`<form id="code-form" method="post" action="${escapeHTML(base)}/verify">
<label for="code">Enter the 6-digit code from your authenticator app</label>
<input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" maxlength="9" spellcheck="false" \
required autofocus>
<button type="submit">Verify</button>
</form>`);
  }
  if (factors.includes('passkey')) {
    parts.push(`<div id="passkey-step"><p>${parts.length ? 'Or use' : 'Use'} a passkey of this account.</p>
<button id="passkey" type="button">Use a passkey</button></div>`);
  }
  if (factors.includes('recovery')) {
    parts.push(`<details${parts.length ? '' : ' open'}><summary>Use a recovery code</summary>
<form id="recovery-form" method="post" action="${escapeHTML(base)}/verify">
<label for="recovery-code">Recovery code (each works once)</label>
<input id="recovery-code" name="recoveryCode" autocomplete="off" autocapitalize="off" spellcheck="false" required>
<button type="submit">Use this code</button>
</form></details>`);
  }
  if (parts.length === 0)
    return '<p id="mfa-none">This account has no second factor this page can ask for. Please log in again.</p>';
  return parts.join('\n');
}

/** Setting up an authenticator app to finish the login: start, scan and confirm, the recovery codes. */
function enrollSteps(): string {
  return `<div id="setup-step">
<p>This account needs two-step login. Set up an authenticator app (such as a password manager or an authenticator on \
your phone) to finish logging in.</p>
<button id="setup" type="button">Set up the authenticator app</button>
<noscript><p>Setting up needs JavaScript.</p></noscript>
</div>
<div id="scan-step" hidden>
<p>Scan this code with the app:</p>
<img id="qr" width="220" height="220" alt="QR code of the key for your authenticator app">
<p>Or enter this key by hand: <code id="secret"></code></p>
<form id="confirm-form">
<label for="enroll-code">Then enter the 6-digit code the app shows</label>
<input id="enroll-code" name="code" autocomplete="one-time-code" inputmode="numeric" maxlength="9" spellcheck="false" \
required>
<button type="submit">Turn on two-step login</button>
</form>
</div>
${codesStep()}`;
}

/** The recovery codes, shown once after the set-up. */
function codesStep(): string {
  return `<div id="codes-step" hidden>
<h2>Your recovery codes</h2>
<p>Each code logs you in once if you lose the app. Keep them somewhere safe: they are not shown again.</p>
<ol id="code-list"></ol>
<button id="continue" type="button">Continue</button>
</div>`;
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1d2330}
label{display:block;margin:.8rem 0 .2rem}input{font:inherit;width:100%;box-sizing:border-box;padding:.35rem}
button{font:inherit;margin-top:.8rem;padding:.35rem 1.2rem}details{margin-top:1.5rem}summary{cursor:pointer}
#passkey-step{margin-top:1.5rem}#qr{display:block;margin:.5rem 0;image-rendering:pixelated}
code,#code-list{font:1rem ui-monospace,monospace;word-break:break-all}#code-list li{margin:.15rem 0}
.error{color:#a00;font-weight:bold;min-height:1.5em}`;

/**
 * The page's script, `__CONFIG__` replaced by `{"authPath","next"}`: the steps, each a call of the client's
 * `mfa` (browser/client/mfa.ts), then on to `next`. The client sends JSON and hands a redirect back unfollowed
 * (a login with a `from` answers 303, which counts as passed); the partial login's cookie goes along on its own
 * (same origin, HttpOnly). Without the bundle (not loaded) the script does nothing: the forms post plainly.
 */
const PAGE_SCRIPT = `(function () {
'use strict';
if (typeof authkoaClient === 'undefined') return;
var cfg = __CONFIG__;
var mfa = authkoaClient.createAuthClient({ authPath: cfg.authPath }).mfa;
function $(id) { return document.getElementById(id); }
function say(text) { $('mfa-error').textContent = text; }
function done() { location.assign(cfg.next); }
async function attempt(box, run) {
  var buttons = box.querySelectorAll('button');
  buttons.forEach(function (b) { b.disabled = true; });
  say('');
  try { await run(); } catch (err) {
    say(err && err.name === 'NotAllowedError' ? 'The passkey prompt was cancelled or timed out.' : String(err && \
err.message || err));
  } finally { buttons.forEach(function (b) { b.disabled = false; }); }
}
function onSubmit(id, run) {
  var form = $(id);
  if (form) form.addEventListener('submit', function (e) { e.preventDefault(); attempt(form, function () { return \
run(new FormData(form)); }); });
}
function onClick(id, run) {
  var button = $(id);
  if (button) button.addEventListener('click', function () { attempt(button.parentNode, run); });
}
onSubmit('code-form', async function (f) { await mfa.verify({ code: String(f.get('code') || '') }); done(); });
onSubmit('recovery-form', async function (f) { await mfa.verify({ recoveryCode: String(f.get('recoveryCode') || \
'') }); done(); });
onClick('passkey', async function () {
  if (typeof PublicKeyCredential === 'undefined' || !navigator.credentials) throw new Error('This browser cannot use \
passkeys here.');
  await mfa.verifyWithPasskey();
  done();
});
onClick('setup', async function () {
  var s = await mfa.setupTotp();
  $('qr').src = s.qr;
  $('secret').textContent = s.secret;
  $('setup-step').hidden = true;
  $('scan-step').hidden = false;
  $('enroll-code').focus();
});
onSubmit('confirm-form', async function (f) {
  var r = await mfa.confirmTotp(String(f.get('code') || ''));
  $('code-list').replaceChildren.apply($('code-list'), r.recoveryCodes.map(function (code) {
    var li = document.createElement('li'); li.textContent = code; return li;
  }));
  $('scan-step').hidden = true;
  $('codes-step').hidden = false;
  $('continue').focus();
});
onClick('continue', async function () { done(); });
})();`;
