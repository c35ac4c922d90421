/**
 * A TypeScript program using `authkoa/client`, as a Node program (no DOM library) writes it. Not a test
 * file: spec/client/types.test.ts compiles it under `strict`, and spec/package/consume.test.ts in the
 * packed-tarball consumer. Each `@ts-expect-error` line must be an error (else TS2578) and no other line may be.
 */
import {
  AuthClientError,
  createAuthClient,
  type CheckEmail,
  type ConfirmResult,
  type ErrorCode,
  type LoginResult,
  type Session,
  type User,
} from 'authkoa/client';

const auth = createAuthClient({ baseURL: 'https://app.example', timeout: 5000 });

export async function signIn(password: string): Promise<User | string[]> {
  const result: LoginResult = await auth.login('local', { user: 'ann', passwd: password });
  switch (result.state) {
    case 'logged_in':
      return result.user;
    case 'mfa_required':
      // A second step is a state with its factors, not an error.
      return result.factors;
    case 'pending':
      return Object.keys(result.answer);
    case 'redirected':
      return [result.location ?? ''];
  }
}

export async function whoAmI(): Promise<string> {
  try {
    const user = await auth.user();
    const id: string = user.id;
    const picture: string = user.picture;
    return `${id} ${picture}`;
  } catch (err) {
    if (err instanceof AuthClientError) {
      // The code is typed: the server's codes and the client's own.
      const code:
        | ErrorCode
        | 'network_error'
        | 'timeout'
        | 'invalid_response'
        | 'response_too_large'
        | 'http_error'
        | 'unsupported'
        | 'no_credential' = err.code;
      if (err.code === 'no_token') return 'nobody';
      // @ts-expect-error not a code authkoa has
      if (err.code === 'no_such_code') return code;
    }
    throw err;
  }
}

export async function devices(): Promise<string[]> {
  const sessions: Session[] = await auth.sessions.list();
  const status = await auth.mfa.status();
  const totp: boolean = status.state === 'logged_in' ? status.summary.totp : false;
  const names: string[] = await auth.providers();
  const detailed = await auth.providers({ details: true });
  return [...sessions.map((s) => `${s.device} ${s.current} ${totp}`), ...names, ...detailed.map((p) => p.kind)];
}

export async function join(email: string, password: string, token: string): Promise<string> {
  const sent: CheckEmail = await auth.accounts.signup({ email, password, name: 'Ann' }, { provider: 'local' });
  try {
    await auth.login('local', { user: email, passwd: password });
  } catch (err) {
    // The accounts' codes are in the union too.
    if (err instanceof AuthClientError && err.code === 'weak_password') return sent.status;
  }
  const done: ConfirmResult = await auth.accounts.confirm(token);
  if (done.state === 'email_changed') return done.email;
  await auth.accounts.reset(email);
  await auth.accounts.resetConfirm(token, password);
  await auth.accounts.changePassword(password, `${password}!`);
  await auth.accounts.changeEmail(email);
  return (await auth.accounts.delete()).status;
}

// @ts-expect-error the option is baseURL
createAuthClient({ baseUrl: 'https://app.example' });
// @ts-expect-error credentials are strings
void auth.login('local', { user: 'ann', passwd: 42 });
// @ts-expect-error sign-up takes an email and a password, not direct's user and passwd
void auth.accounts.signup({ user: 'ann', passwd: 'secret' });
// @ts-expect-error verify takes a code or a recovery code
void auth.mfa.verify({ otp: '123456' });
