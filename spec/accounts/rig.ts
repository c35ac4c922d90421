/**
 * An app with accounts and one `password` provider `local` that mails through a real SMTP server on
 * 127.0.0.1; the helpers the account tests share: sign up, follow a mailed link, log in.
 */
import * as OTPAuth from 'otpauth';
import type { AuthKoaOptions } from '../../lib/index.js';
import { emailSender } from '../../lib/index.js';
import { memoryStateStore } from '../../lib/state/memory.js';
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
  o: {
    store?: unknown;
    provider?: Record<string, unknown>;
    service?: Partial<AuthKoaOptions>;
    /** The second factor on, its factors in a memory store on the rig's clock (spec/mfa/fixtures.ts does the same). */
    mfa?: boolean;
    /** Providers beside `local` (a passkey provider, for what a deleted account leaves behind). */
    extraProviders?: unknown[];
    /** The application's own routes beside the test app's. */
    extraRoutes?: Parameters<typeof startApp>[1];
  } = {},
): Promise<AccountsRig> {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const clock = manualClock();
  const logs: string[] = [];
  const log = (level: string) => (m: string) => logs.push(`${level} ${m}`);
  const app = await startApp(
    {
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
        ...((o.extraProviders ?? []) as never[]),
      ],
      ...(o.mfa && { mfa: { store: memoryStateStore({ clock }) } }),
      ...o.service,
    },
    o.extraRoutes,
  );
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

/** `POST login` `{ user, passwd }` from the app's origin, as its page would send it. */
export function login(client: Client, email: string, password: string): Promise<Response> {
  return post(client, '/auth/local/login', { user: email, passwd: password });
}

/** `GET /private` with the XSRF header: its status, and the session's user when it answered one. */
export async function whoami(client: Client): Promise<{ status: number; user?: Record<string, unknown> }> {
  const res = await client.fetch('/private', { headers: client.xsrf() });
  const body = res.status === 201 ? ((await res.json()) as { user: Record<string, unknown> }) : undefined;
  return { status: res.status, ...(body && { user: body.user }) };
}

/** The `code` of a JSON error answer (it throws when the answer is not JSON). */
export async function codeOf(res: Response): Promise<string | undefined> {
  if (!/^application\/json/.test(res.headers.get('content-type') ?? ''))
    throw new Error(`not JSON: ${res.status} ${res.headers.get('content-type')}: ${await res.text()}`);
  return ((await res.json()) as { code?: string }).code;
}

/** The next `count` messages, by the address each went to (the order two sends arrive in is the SMTP server's). */
export async function mailsTo(r: AccountsRig, count: number): Promise<Map<string, ReceivedMail>> {
  const byAddress = new Map<string, ReceivedMail>();
  for (let i = 0; i < count; i++) {
    const mail = await r.smtp.next();
    byAddress.set(mail.envelopeTo.join(','), mail);
  }
  return byAddress;
}

/** A page's form: its action and its fields (hidden inputs), as a browser would submit them. */
export function formOf(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1];
  if (action === undefined) throw new Error(`no form in ${html}`);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
  return { action, fields };
}

/** The TOTP an authenticator app shows for `otpauthUrl` at `timeMs` (the otpauth library, not ours). */
export function appCode(otpauthUrl: string, timeMs: number): string {
  const totp = OTPAuth.URI.parse(otpauthUrl);
  if (!(totp instanceof OTPAuth.TOTP)) throw new Error('not a TOTP URI');
  return totp.generate({ timestamp: timeMs });
}

/** Turns TOTP on for the rig's logged-in client through the second factor's routes; the key's URI. */
export async function enrolTotp(r: AccountsRig, client = r.client): Promise<string> {
  const setup = await client.fetch('/auth/mfa/totp/setup', { method: 'POST', headers: client.xsrf() });
  if (setup.status !== 200) throw new Error(`setup: ${setup.status} ${await setup.text()}`);
  const { otpauthUrl } = (await setup.json()) as { otpauthUrl: string };
  const confirm = await client.fetch('/auth/mfa/totp/confirm', {
    method: 'POST',
    headers: client.xsrf(),
    json: { code: appCode(otpauthUrl, r.clock()) },
  });
  if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status} ${await confirm.text()}`);
  return otpauthUrl;
}
