import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { clientKey } from '../../http/client-key.js';
import { rateLimited } from '../../http/respond.js';
import type { ProviderDepsWith } from '../../providers/core/contract.js';
import { describeSendError } from '../../providers/verified/sender.js';
import { accountError } from '../errors.js';
import type { PasswordCheck } from '../password-login.js';
import { BreachCheckError, passwordProblem } from '../password-policy.js';
import type { AccountsService } from '../service.js';
import type { Account } from '../store.js';
import type { AfterAnswer } from './after-answer.js';
import type { MessageKind } from './messages.js';
import type { PasswordConfig } from './options.js';

/** The capabilities the password kind asks for (`needs`). */
export const PASSWORD_NEEDS = ['checkCredentials', 'loginSession', 'featureService'] as const;
export type PasswordNeed = (typeof PASSWORD_NEEDS)[number];
export type PasswordDeps = ProviderDepsWith<PasswordNeed>;

/** What every route of one password provider works with. */
export interface PasswordParts {
  readonly config: PasswordConfig;
  readonly deps: PasswordDeps;
  readonly accounts: AccountsService;
  /** The login check: one scrypt derivation whatever the answer (password-login.ts). */
  readonly check: (email: string, password: string) => Promise<PasswordCheck>;
  /** What routes start after their answer (mails), which the provider's close waits for. */
  readonly later: AfterAnswer;
}

/** Which limit a request counts against: each has its own count per address and per client. */
export type LimitedAction = 'signup' | 'reset' | 'resend' | 'email';

/**
 * Counts a request against the per-address and per-client limits (`rateLimit`) of its action: a 429 with
 * Retry-After when over either, whatever the address (an account or not: the count is of requests).
 */
export async function withinLimits(p: PasswordParts, ctx: Context, action: LimitedAction, email: string) {
  const wait = await limitWait(p, ctx.ip, action, email);
  if (wait !== undefined) throw rateLimited(ctx, wait, 'too many requests: try again later');
}

/**
 * The same count without an answer, for a link sent on the side (after the answer, so it needs no request):
 * true when the request from `ip` is within the limits.
 */
export async function mayAlsoSend(p: PasswordParts, ip: string, email: string): Promise<boolean> {
  return (await limitWait(p, ip, 'resend', email)) === undefined;
}

/** Counts a request of `ip` for `email`: how long to wait when over a limit, else undefined. */
async function limitWait(p: PasswordParts, ip: string, action: LimitedAction, email: string) {
  const limits = p.config.rateLimit;
  if (!limits) return undefined;
  const prefix = `password:${p.config.name}:${action}`;
  return p.deps.limiter.hit(
    [
      { key: `${prefix}:a:${email}`, limit: limits.perAddress },
      { key: `${prefix}:i:${clientKey(ip)}`, limit: limits.perIP },
    ],
    limits.windowMs,
  );
}

/** Renders one of the messages and hands it to the sender; a failure is logged and answered 502. */
export async function sendMessage(
  p: PasswordParts,
  kind: MessageKind,
  to: string,
  fields: { url: string; name?: string; identities?: string },
): Promise<void> {
  const { config, deps } = p;
  const message = config.messages[kind];
  const site = new URL(deps.url).host;
  const data = {
    URL: fields.url,
    Address: to,
    Name: fields.name ?? '',
    Site: site,
    Identities: fields.identities ?? '',
  };
  const text = message.text.render(data, config.html);
  try {
    await config.sender.send(to, text, { subject: message.subject, kind });
  } catch (err) {
    // No cause on the AuthError: the service logs causes, and SMTP replies may quote the request.
    deps.logger.error(`password ${config.name}: sending the ${kind} message failed: ${describeSendError(err)}`, {
      provider: config.name,
      code: 'send_failed',
    });
    throw new AuthError('sender_failed', 'failed to send the message');
  }
}

/** Refuses a password the policy does not take (400 `weak_password`, naming the rule), before anything changes. */
export async function checkPassword(p: PasswordParts, password: unknown, owner: { email: string; name?: string }) {
  if (typeof password !== 'string' || password === '') throw accountError('weak_password', 'a password is required');
  let problem;
  try {
    problem = await passwordProblem(password, owner, p.config.policy);
  } catch (err) {
    if (err instanceof BreachCheckError)
      throw accountError('breach_check_unavailable', 'the password could not be checked: try again later', {
        cause: err,
      });
    throw err;
  }
  if (problem) throw accountError('weak_password', `the password is refused: ${problem}`);
  return password;
}

/** The session user of an account: its address, and its name when it gave one (else the address). */
export async function sessionUserOf(p: PasswordParts, account: Account) {
  return {
    // The account's one id, whichever password provider logs it in (user-ids.ts).
    id: await p.accounts.userIdOf(account.id),
    name: account.name ?? account.email,
    email: account.email,
    picture: '',
  };
}

/** Whether the request is a browser's form (a link's page), answered with a page, not JSON. */
export function isFormPost(ctx: Context): boolean {
  return typeof ctx.is('application/x-www-form-urlencoded', 'multipart/form-data') === 'string';
}
