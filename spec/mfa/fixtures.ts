/**
 * An app with the second factor on, and the steps tests repeat: log in with a password, set up TOTP
 * (codes computed by the `otpauth` library from the URI the server hands out, not by our code), answer
 * the second step.
 */
import * as OTPAuth from 'otpauth';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import type { AuthKoaOptions, ProviderEntry } from '../../lib/index.js';
import { Client, manualClock, startApp, type TestApp } from '../helpers/http.js';

export const SECRET = 'mfa-test-secret-0123456789abcdef';
export const PASSWORDS: Record<string, string> = { alice: 'alice-pw', bob: 'bob-pw' };

export interface MfaApp extends TestApp {
  clock: ReturnType<typeof manualClock>;
  factorState: StateStore;
}

/** An app with a `direct` provider (alice, bob) and `mfa` on, its factors in a memory store, its clock by hand. */
export async function startMfaApp(opts: Partial<AuthKoaOptions> = {}, providers?: ProviderEntry[]): Promise<MfaApp> {
  const clock = manualClock();
  const factorState = memoryStateStore({ clock });
  const app = await startApp({
    secret: SECRET,
    clock,
    providers: providers ?? [{ kind: 'direct', name: 'direct', checker: (user: string, pw: string) => PASSWORDS[user] === pw }],
    ...opts,
    mfa: { store: factorState, ...opts.mfa },
  } as AuthKoaOptions);
  return Object.assign(app, { clock, factorState });
}

/** Logs `user` in with the direct provider: the answer (a session, or `mfa_required`). */
export function passwordLogin(c: Client, user: string, extra: Record<string, string> = {}): Promise<Response> {
  return c.fetch('/auth/direct/login', { method: 'POST', json: { user, passwd: PASSWORDS[user], ...extra } });
}

/** The TOTP an authenticator app would show for `otpauthUrl` at `timeMs` (the otpauth library, not ours). */
export function appCode(otpauthUrl: string, timeMs: number): string {
  const totp = OTPAuth.URI.parse(otpauthUrl);
  if (!(totp instanceof OTPAuth.TOTP)) throw new Error('not a TOTP URI');
  return totp.generate({ timestamp: timeMs });
}

/** Sets TOTP up for the client's logged-in user: the URI and the recovery codes. */
export async function enrollTotp(app: MfaApp, c: Client): Promise<{ otpauthUrl: string; secret: string; recoveryCodes: string[] }> {
  const setup = await c.fetch('/auth/mfa/totp/setup', { method: 'POST', headers: c.xsrf() });
  if (setup.status !== 200) throw new Error(`setup: ${setup.status} ${await setup.text()}`);
  const { otpauthUrl, secret } = (await setup.json()) as { otpauthUrl: string; secret: string };
  const confirm = await c.fetch('/auth/mfa/totp/confirm', { method: 'POST', headers: c.xsrf(), json: { code: appCode(otpauthUrl, app.clock()) } });
  if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status} ${await confirm.text()}`);
  const { recoveryCodes } = (await confirm.json()) as { recoveryCodes: string[] };
  // The confirming code's step is spent: the next code a test sends comes from the next step.
  app.clock.advance(30_000);
  return { otpauthUrl, secret, recoveryCodes };
}

/** A client that logged in with a password and has TOTP on (now logged in again, fully). */
export async function enrolledUser(app: MfaApp, user = 'alice'): Promise<{ c: Client; otpauthUrl: string; recoveryCodes: string[] }> {
  const c = new Client(app.url);
  const first = await passwordLogin(c, user);
  if (first.status !== 200) throw new Error(`login: ${first.status}`);
  const { otpauthUrl, recoveryCodes } = await enrollTotp(app, c);
  return { c, otpauthUrl, recoveryCodes };
}
