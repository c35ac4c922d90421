/**
 * The app the service-level state-store tests drive (Redis, PostgreSQL): a verified provider whose
 * "sender" keeps the messages, and a direct one, on the state store `stateStore`, its log kept.
 */
import type { ExecutionContext } from 'ava';
import type { AuthKoaOptions } from '../../lib/index.js';
import { Client, startApp } from '../helpers/http.js';

export async function emailApp(
  t: ExecutionContext,
  secret: string,
  stateStore: string,
  more: Partial<AuthKoaOptions> = {},
) {
  const sent: string[] = [];
  const logs: string[] = [];
  const log = (level: string) => (m: string) => logs.push(`${level} ${m}`);
  const app = await startApp({
    secret,
    stateStore,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    providers: [
      {
        kind: 'verified',
        name: 'email',
        template: '{{.Token}}',
        sender: async (_address: string, text: string) => void sent.push(text),
      },
      { kind: 'direct', name: 'local', checker: (_user: string, passwd: string) => passwd === 'pw' },
    ],
    ...more,
  });
  t.teardown(() => app.close());
  const client = new Client(app.url);
  /** Step 1; resolves the response and, when it was sent, the token. */
  const request = async (address = 'a@example.com') => {
    const before = sent.length;
    const res = await client.fetch(`/auth/email/login?user=u&address=${encodeURIComponent(address)}`);
    return { res, token: sent.length > before ? sent.at(-1)! : undefined };
  };
  const confirm = (token: string) =>
    client.fetch(`/auth/email/login?token=${encodeURIComponent(token)}`, { method: 'POST' });
  const login = (user: string, c = client) =>
    c.fetch('/auth/local/login', { method: 'POST', json: { user, passwd: 'pw' } });
  return { app, client, sent, logs, request, confirm, login };
}
