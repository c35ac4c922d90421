import type { Context } from 'koa';
import { writePage } from '../../providers/verified/confirm-page.js';
import { escapeHTML } from '../../providers/verified/template.js';

/**
 * The few pages a password provider's links open: a button that POSTs a confirmation link's token (so a mail
 * scanner's GET spends nothing), the form for a new password, and what a form's POST ends with. No script
 * runs on them; their CSP allows their own form only.
 */

const BUTTON_STYLE = 'button{font-size:1.1rem;padding:.6rem 1.4rem}';

/** A link's page: what the link does, for which address, and the button whose POST does it. */
export function writeLinkButtonPage(
  ctx: Context,
  page: {
    title: string;
    text: string;
    address: string;
    action: string;
    button: string;
    fields: Record<string, string>;
  },
): void {
  const hidden = Object.entries(page.fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHTML(k)}" value="${escapeHTML(v)}">`)
    .join('\n');
  writePage(ctx, {
    status: 200,
    title: page.title,
    formAction: "'self'",
    // The token is in this page's URL: keep it out of Referer headers to other sites. Not 'no-referrer':
    // that would make the browser send `Origin: null` with the form's POST.
    referrerPolicy: 'same-origin',
    style: BUTTON_STYLE,
    body: `<p>${escapeHTML(page.text)} <strong>${escapeHTML(page.address)}</strong></p>
<form method="post" action="${escapeHTML(page.action)}">
${hidden}
<button type="submit">${escapeHTML(page.button)}</button>
</form>`,
  });
}

/** The reset link's page: a new password, twice not needed (browsers offer to generate and save one). */
export function writeResetPage(
  ctx: Context,
  page: { token: string; address: string; minLength: number; problem?: string; status?: number },
): void {
  const problem = page.problem ? `<p role="alert"><strong>${escapeHTML(page.problem)}</strong></p>\n` : '';
  const input =
    '<input id="password" type="password" name="password" autocomplete="new-password" ' +
    `minlength="${page.minLength}" maxlength="256" required>`;
  writePage(ctx, {
    status: page.status ?? 200,
    title: 'Choose a new password',
    formAction: "'self'",
    referrerPolicy: 'same-origin',
    style: `${BUTTON_STYLE}label,input{display:block;margin:.4rem 0}input{font-size:1.1rem;width:100%}`,
    body: `${problem}<form method="post" action="confirm">
<input type="hidden" name="token" value="${escapeHTML(page.token)}">
<input type="text" name="username" autocomplete="username" value="${escapeHTML(page.address)}" hidden>
<label for="password">New password for <strong>${escapeHTML(page.address)}</strong></label>
${input}
<button type="submit">Set the password</button>
</form>`,
  });
}

/** What a form's POST ends with: a heading, a sentence and the way back to the site (`home`), no form. */
export function writeAccountPage(ctx: Context, page: { title: string; text: string; home: string }): void {
  writePage(ctx, {
    status: 200,
    title: page.title,
    formAction: "'none'",
    referrerPolicy: 'no-referrer',
    body: `<p>${escapeHTML(page.text)}</p>\n<p><a href="${escapeHTML(page.home)}/">Go to the site</a></p>`,
  });
}
