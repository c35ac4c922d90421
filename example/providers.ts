import type { ProviderEntry } from '../lib/index.js';
import { catalog } from '../lib/providers/social.js';
import type { Outbox } from './outbox.js';

export const DEMO_USER = { name: 'demo', passwd: 'demo' };
/** The password provider's name: `local` is the direct provider's (the demo user's), which the guides log in to. */
export const ACCOUNTS_PROVIDER = 'password';

/** What the reference app's providers need from its start-up. */
export interface ProviderSetup {
  devPort: number;
  outbox: Outbox;
  env: NodeJS.ProcessEnv;
  /** Where the passkey provider keeps passkeys; without it the demo has no passkeys (its URL is an IP address). */
  passkeyCredentials?: string;
  /** False leaves Telegram out even with a token set: its package is not installed (features.ts). */
  telegram?: boolean;
  /** False leaves the dev provider out: its server's port is taken (features.ts). */
  dev?: boolean;
}

/** The Telegram bot token the demo reads, if any. */
export function telegramToken(env: NodeJS.ProcessEnv): string | undefined {
  return (env.TELEGRAM_BOT_TOKEN ?? env.TELEGRAM_TOKEN) || undefined;
}

/**
 * The providers the demo offers: the dev OAuth2 server, a direct provider with a demo user, email login
 * through the outbox, accounts (sign-up, password login and reset; their messages in the outbox too),
 * passkeys (when the setup says where to keep them), Telegram when TELEGRAM_BOT_TOKEN is set (the variable
 * `authctl bot` reads; TELEGRAM_TOKEN, its earlier name, still counts), and every
 * built-in social provider whose <NAME>_CID and <NAME>_CSEC variables are set (e.g. GITHUB_CID, GITHUB_CSEC).
 */
export function demoProviders(s: ProviderSetup): ProviderEntry[] {
  const providers: ProviderEntry[] = [
    ...(s.dev === false ? [] : [{ kind: 'dev', port: s.devPort, emailDomain: 'example.com' } as const]),
    {
      kind: 'direct',
      name: 'local',
      checker: (user: string, passwd: string) => user === DEMO_USER.name && passwd === DEMO_USER.passwd,
    },
    {
      kind: 'verified',
      name: 'email',
      sender: s.outbox.sender,
      confirmPage: true,
      template:
        'Hello {{.User}},\n\nfollow this link to log in to the authkoa demo:\n{{.URL}}\n\nIt works once, for 30 minutes.',
    },
    // Its messages (confirmation and reset links, notices) land in the outbox like the email provider's.
    { kind: 'password', name: ACCOUNTS_PROVIDER, sender: s.outbox.sender },
  ];
  if (s.passkeyCredentials)
    providers.push({ kind: 'passkey', rpName: 'authkoa demo', credentials: s.passkeyCredentials });
  for (const name of Object.keys(catalog)) {
    const cid = s.env[`${name.toUpperCase()}_CID`];
    const csecret = s.env[`${name.toUpperCase()}_CSEC`];
    if (cid && csecret) providers.push({ name, cid, csecret } as ProviderEntry); // name: a catalog row, a built-in name
  }
  const token = telegramToken(s.env);
  if (token && s.telegram !== false) {
    providers.push({
      kind: 'telegram',
      name: 'telegram',
      token,
      successMsg: 'You are logged in to the authkoa demo.',
      errorMsg: 'This login link expired; start again from the page.',
    });
  }
  return providers;
}
