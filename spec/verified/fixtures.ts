import type { AuthKoaOptions, EmailSenderOptions } from '../../lib/index.js';
import { emailSender } from '../../lib/index.js';
import { Client, manualClock, startApp, type TestApp } from '../helpers/http.js';
import { startSmtp, type SmtpPeer, type SmtpPeerOptions } from '../helpers/smtp.js';

export const SECRET = 'verified-test-secret-0123456789abcdef';
export const TEMPLATE = 'Hello {{.User}} <{{.Address}}>, site {{.Site}}\ntoken: {{.Token}}\n';

/** Log lines the service wrote, to check that nothing secret reaches them. */
export type Logs = string[];

export interface Rig {
  app: TestApp;
  smtp: SmtpPeer;
  client: Client;
  clock: ReturnType<typeof manualClock>;
  logs: Logs;
}

/**
 * An app with one verified provider `email` that mails through a real SMTP server on 127.0.0.1.
 * `provider` and `service` override options; `sender` overrides emailSender options.
 */
export async function rig(
  t: { teardown(fn: () => unknown): void },
  o: {
    smtp?: SmtpPeerOptions;
    sender?: Partial<EmailSenderOptions>;
    provider?: Record<string, unknown>;
    service?: Partial<AuthKoaOptions>;
  } = {},
): Promise<Rig> {
  const smtp = await startSmtp(o.smtp);
  t.teardown(() => smtp.close());
  const clock = manualClock();
  const logs: Logs = [];
  const log = (level: string) => (m: string) => logs.push(`${level} ${m}`);
  const app = await startApp({
    secret: SECRET,
    clock,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    providers: [
      {
        kind: 'verified',
        name: 'email',
        template: TEMPLATE,
        sender: emailSender({
          host: '127.0.0.1',
          port: smtp.port,
          secure: false,
          from: '"Test App" <login@example.com>',
          subject: 'Confirm your login',
          // A safety net only (tests about the timeout set their own): 2 s was short enough for a loaded
          // machine to exceed in a STARTTLS handshake, turning a slow delivery into a 502.
          timeout: '30s',
          ...(smtp.ca ? { tls: { ca: smtp.ca } } : {}),
          ...o.sender,
        }),
        ...o.provider,
      },
    ],
    ...o.service,
  });
  t.teardown(() => app.close());
  return { app, smtp, client: new Client(app.url), clock, logs };
}

/** The token in a message rendered from TEMPLATE. */
export function tokenIn(text: string | undefined): string {
  const m = /token: (\S+)/.exec(text ?? '');
  if (!m) throw new Error(`no token in ${JSON.stringify(text)}`);
  return m[1]!;
}

/** Step 1 for `user`/`address`, then the token from the message that arrived. */
export async function requestToken(r: Rig, query: Record<string, string> = {}): Promise<string> {
  const q = new URLSearchParams({ user: 'alice', address: 'alice@example.com', ...query });
  const res = await r.client.fetch(`/auth/email/login?${q}`);
  if (res.status !== 200) throw new Error(`step 1 answered ${res.status}: ${await res.text()}`);
  return tokenIn((await r.smtp.next()).mail.text);
}
