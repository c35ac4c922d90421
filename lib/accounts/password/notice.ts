import type { LinkView } from '../links/manage.js';
import type { Account } from '../store.js';
import { sendMessage, type PasswordParts } from './parts.js';

/**
 * The notice of a new password (`passwordChanged`), mailed to the owner after a reset and after `POST password`,
 * once the answer is out (a mail that fails does not undo the change). A login of another provider linked to the
 * account logs in as it without the password, and whoever held the account may have linked their own: the notice
 * lists them, by provider and when each was linked (never the identity's own name, which is anyone's wording), and
 * says where to review them (`reviewLinksUrl`).
 */
export function sendPasswordNotice(p: PasswordParts, account: Account): void {
  p.later.run('sending the password notice', async () => {
    const linked = (await p.accounts.linkedIdentities(account.id)).filter((l) => !l.primary);
    const fields = { url: reviewUrl(p), name: account.name, identities: identitiesText(linked) };
    await sendMessage(p, 'passwordChanged', account.email, fields);
  });
}

/** `reviewLinksUrl` as a URL: a path is under the service's `url`. */
function reviewUrl(p: PasswordParts): string {
  const review = p.config.reviewLinksUrl;
  return review.startsWith('/') ? `${p.deps.url}${review}` : review;
}

/** `{{.Identities}}`: a line per linked login of another provider, or a sentence saying there is none. */
function identitiesText(linked: readonly LinkView[]): string {
  if (linked.length === 0) return 'No login of another provider is linked to the account.';
  const lines = linked.map((l) => `- ${l.provider}, linked ${l.linked}`);
  return ['These logins of other providers are linked to the account, and log in as it:', ...lines].join('\n');
}
