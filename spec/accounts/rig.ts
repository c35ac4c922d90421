/**
 * An app with accounts and one `password` provider `local` that mails through a real SMTP server on
 * 127.0.0.1; the helpers the account tests share: sign up, follow a mailed link, log in.
 */
import type { AuthKoaOptions } from '../../lib/index.js';
import { emailSender } from '../../lib/index.js';
import { Client, manualClock, startApp, type TestApp } from '../helpers/http.js';
import { startSmtp, type ReceivedMail, type SmtpPeer } from '../helpers/smtp.js';

export const SECRET = 'accounts-test-secret-0123456789abcdef';
/** Cheap scrypt for tests that are not about its cost (the default is OWASP's ln=17). */
export const FAST_SCRYPT = { ln: 10, r: 8, p: 1 };
export const PASSWORD = 'correct horse battery';

export interface AccountsRig {
  app: TestApp;
  smtp: SmtpPeer;
  /** A browser of the app's origin, with its cookie jar. */
  client: Client;
  clock: ReturnType<typeof manualClock>;
  logs: string[];
}

export async function accountsRig(
  t: { teardown(fn: () => unknown): void },
  o: { store?: unknown; provider?: Record<string, unknown>; service?: Partial<AuthKoaOptions> } = {},
): Promise<AccountsRig> {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const clock = manualClock();
  const logs: string[] = [];
  const log = (level: string) => (m: string) => logs.push(`${level} ${m}`);
  const app = await startApp({
    secret: SECRET,
    clock,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    accounts: { store: (o.store ?? 'memory://') as string },
    providers: [
      {
        kind: 'password',
        name: 'local',
        scrypt: FAST_SCRYPT,
        sender: emailSender({
          host: '127.0.0.1',
          port: smtp.port,
          secure: false,
          from: '"Test App" <accounts@example.com>',
          timeout: '30s',
        }),
        ...o.provider,
      } as never,
    ],
    ...o.service,
  });
  t.teardown(() => app.close());
  return { app, smtp, client: new Client(app.url), clock, logs };
}

/** The link in a message (the first http URL in its text). */
export function linkIn(mail: ReceivedMail): string {
  const m = /https?:\/\/\S+/.exec(mail.mail.text ?? '');
  if (!m) throw new Error(`no link in ${JSON.stringify(mail.mail.text)}`);
  return m[0];
}

/** The token of a mailed link. */
export function tokenOf(link: string): string {
  return new URL(link).searchParams.get('token')!;
}

/** POSTs JSON from the app's own origin (as its page would), with the XSRF header when the jar has one. */
export function post(client: Client, path: string, json: unknown, method = 'POST'): Promise<Response> {
  return client.fetch(path, {
    method,
    json,
    headers: { origin: new URL(client.base).origin, ...client.xsrf() },
  });
}

/** Signs up `email` and follows the confirmation link by its POST: the client ends up logged in. */
export async function signUpAndConfirm(r: AccountsRig, email: string, password = PASSWORD, client = r.client) {
  const res = await post(client, '/auth/local/signup', { email, password });
  if (res.status !== 202) throw new Error(`signup answered ${res.status}: ${await res.text()}`);
  const link = linkIn(await r.smtp.next());
  const confirmed = await post(client, '/auth/local/confirm', { token: tokenOf(link) });
  if (confirmed.status !== 200) throw new Error(`confirm answered ${confirmed.status}: ${await confirmed.text()}`);
  return (await confirmed.json()) as Record<string, unknown>;
}
