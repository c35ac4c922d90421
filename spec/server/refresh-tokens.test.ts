import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import * as oidc from 'openid-client';
import { GrantBook, type Exchange } from '../../lib/providers/oauth2-server/grants.js';
import { manualClock } from '../helpers/http.js';
import { importSource } from '../helpers/source.js';
import { tempDir } from '../helpers/temp.js';
import { pkce } from './fixtures.js';
import { relyingParty, rpSignIn, RP_REDIRECT, startProvider } from './openid-fixtures.js';

/**
 * Refresh tokens of the local OpenID provider, driven by openid-client (a certified RP): issued only to clients
 * registered for them, rotated on every use, bound to the client and the granted scope, expiring after
 * refreshTokenTTL, and a spent one presented again revokes every token of its family.
 */

const DAY = 86_400_000;
/** A confidential client registered for refresh tokens, a second one, and one that is not. */
const APP = { id: 'app', secret: 'app-secret', redirectURIs: [RP_REDIRECT], refreshTokens: true };
const OTHER = { id: 'other', secret: 'other-secret', redirectURIs: [RP_REDIRECT], refreshTokens: true };
const PLAIN = { id: 'plain', secret: 'plain-secret', redirectURIs: [RP_REDIRECT] };

/** An EdDSA-keyed app whose server entry runs on a hand-moved clock; its warnings are kept. */
async function provider(t: ExecutionContext) {
  const clock = manualClock();
  const warnings: string[] = [];
  const logger = { info() {}, warn: (m: string) => void warnings.push(m), error() {} };
  const { serverURL } = await startProvider(
    t,
    { logger },
    { clock, clients: [APP, OTHER, PLAIN], refreshTokenTTL: '1d' },
  );
  return { clock, serverURL, warnings, config: await relyingParty(serverURL, APP) };
}

/** A refresh_token grant sent by hand, the client in HTTP Basic. */
function refreshAs(serverURL: string, client: { id: string; secret: string }, refreshToken: string) {
  return fetch(`${serverURL}/access_token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  });
}

/** The status and OAuth2 error of a token endpoint answer. */
async function refusal(res: Response): Promise<{ status: number; error: string }> {
  return { status: res.status, error: ((await res.json()) as { error: string }).error };
}

/** The status userinfo answers an access token with. */
async function userinfoStatus(serverURL: string, accessToken: string): Promise<number> {
  return (await fetch(`${serverURL}/userinfo`, { headers: { Authorization: `Bearer ${accessToken}` } })).status;
}

/** The OAuth2 error openid-client threw for a token endpoint refusal. */
async function rpError(t: ExecutionContext, promise: Promise<unknown>): Promise<string | undefined> {
  const err = await t.throwsAsync(promise, { instanceOf: oidc.ResponseBodyError });
  return err?.error;
}

test('a client registered with refreshTokens gets a refresh token; refreshTokenGrant rotates it, the new id_token keeps sub and auth_time with a later iat and no nonce, and the old token is spent', async (t) => {
  const { clock, serverURL, config } = await provider(t);
  const { login, tokens } = await rpSignIn(config, serverURL);
  t.is(typeof tokens.refresh_token, 'string');
  const first = tokens.claims()!;
  t.is(first.nonce, login.nonce);

  clock.advance(10 * 60_000);
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  t.is(typeof refreshed.refresh_token, 'string');
  t.not(refreshed.refresh_token, tokens.refresh_token, 'rotated');
  t.not(refreshed.access_token, tokens.access_token);
  t.is(refreshed.scope, 'openid profile email');
  const claims = refreshed.claims()!;
  t.is(claims.sub, first.sub);
  t.is(claims.aud, APP.id);
  t.is(claims.auth_time, first.auth_time, 'the sign-in it stands for is the same');
  t.is(claims.iat, first.iat + 600);
  t.false('nonce' in claims, 'no nonce on a refresh (OpenID Connect Core §12.2)');
  t.like(await oidc.fetchUserInfo(config, refreshed.access_token, 'alice'), { sub: 'alice', name: 'Alice Liddell' });

  t.deepEqual(await refusal(await refreshAs(serverURL, APP, tokens.refresh_token!)), {
    status: 400,
    error: 'invalid_grant',
  });
});

test('a refresh may narrow the scope, the rotated token keeping the whole grant; asking for more than granted is invalid_scope and spends nothing', async (t) => {
  const { serverURL, config } = await provider(t);
  const { tokens } = await rpSignIn(config, serverURL);
  const narrow = await oidc.refreshTokenGrant(config, tokens.refresh_token!, { scope: 'openid' });
  t.is(narrow.scope, 'openid');
  const claims = narrow.claims()!;
  t.false('name' in claims || 'email' in claims, 'no profile or email claims without their scopes');
  t.deepEqual({ ...(await oidc.fetchUserInfo(config, narrow.access_token, 'alice')) }, { sub: 'alice' });

  t.is(
    await rpError(t, oidc.refreshTokenGrant(config, narrow.refresh_token!, { scope: 'openid profile email phone' })),
    'invalid_scope',
  );
  t.is(await rpError(t, oidc.refreshTokenGrant(config, narrow.refresh_token!, { scope: 'address' })), 'invalid_scope');

  // The refused requests left the token as it was, and it still stands for the whole grant.
  const whole = await oidc.refreshTokenGrant(config, narrow.refresh_token!);
  t.is(whole.scope, 'openid profile email');
  t.like(whole.claims(), { name: 'Alice Liddell', email: 'alice@example.test' });
});

test('a spent refresh token presented again → 400 invalid_grant, and its whole family is revoked: the newest refresh and access tokens stop working, another login is untouched', async (t) => {
  const { serverURL, config, warnings } = await provider(t);
  const { tokens: first } = await rpSignIn(config, serverURL);
  const second = await oidc.refreshTokenGrant(config, first.refresh_token!);
  const newest = await oidc.refreshTokenGrant(config, second.refresh_token!);
  const { tokens: elsewhere } = await rpSignIn(config, serverURL);
  t.is(await userinfoStatus(serverURL, newest.access_token), 200);
  t.deepEqual(warnings, []);

  const replay = await refreshAs(serverURL, APP, first.refresh_token!);
  t.is(replay.headers.get('cache-control'), 'no-store');
  t.deepEqual(await refusal(replay), { status: 400, error: 'invalid_grant' });
  t.is(warnings.length, 1);
  t.regex(warnings[0], /a refresh token was used twice; every token issued from its grant is revoked/);

  for (const [what, token] of [
    ['the newest access token', newest.access_token],
    ['the one before', second.access_token],
    ['the first', first.access_token],
  ])
    t.is(await userinfoStatus(serverURL, token), 401, what);
  t.deepEqual(await refusal(await refreshAs(serverURL, APP, newest.refresh_token!)), {
    status: 400,
    error: 'invalid_grant',
  });

  t.is(await userinfoStatus(serverURL, elsewhere.access_token), 200, 'another family of the same user and client');
  t.is(typeof (await oidc.refreshTokenGrant(config, elsewhere.refresh_token!)).refresh_token, 'string');
});

test("client B presenting client A's refresh token → 400 invalid_grant; nothing is spent or revoked", async (t) => {
  const { serverURL, config, warnings } = await provider(t);
  const { tokens } = await rpSignIn(config, serverURL);
  t.deepEqual(await refusal(await refreshAs(serverURL, OTHER, tokens.refresh_token!)), {
    status: 400,
    error: 'invalid_grant',
  });
  t.deepEqual(warnings, []);
  t.is(await userinfoStatus(serverURL, tokens.access_token), 200);
  const own = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  t.is(await userinfoStatus(serverURL, own.access_token), 200);
});

test('a client not registered for refresh tokens gets none, and its refresh_token grant → 400 unauthorized_client (even with a live token of another client)', async (t) => {
  const { serverURL, config } = await provider(t);
  const { tokens } = await rpSignIn(await relyingParty(serverURL, PLAIN), serverURL);
  t.truthy(tokens.access_token);
  t.false('refresh_token' in tokens);

  const { tokens: app } = await rpSignIn(config, serverURL);
  t.deepEqual(await refusal(await refreshAs(serverURL, PLAIN, app.refresh_token!)), {
    status: 400,
    error: 'unauthorized_client',
  });
  t.is(typeof (await oidc.refreshTokenGrant(config, app.refresh_token!)).refresh_token, 'string', 'left unspent');
});

test('refresh tokens expire after refreshTokenTTL: one used a second before works and its successor gets the full TTL again; one unused for the TTL → invalid_grant', async (t) => {
  const { clock, serverURL, config } = await provider(t);
  const { tokens } = await rpSignIn(config, serverURL);
  clock.advance(DAY - 1000);
  const second = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  clock.advance(DAY - 1000);
  const third = await oidc.refreshTokenGrant(config, second.refresh_token!);
  t.is(third.claims()!.sub, 'alice', 'two days after the sign-in, each token used within its day');
  clock.advance(DAY);
  t.deepEqual(await refusal(await refreshAs(serverURL, APP, third.refresh_token!)), {
    status: 400,
    error: 'invalid_grant',
  });
});

/** What presenting a spent refresh token did to its family, in a GrantBook of the given class. */
interface ReuseOutcome {
  replay: Exchange<string>;
  newestAccessAlive: boolean;
  newestRefresh: Exchange<string>;
  warnings: string[];
}

/**
 * The reuse scenario against a GrantBook class directly: a code exchanged, its refresh token rotated once, then
 * the spent one presented again; then whether the newest access and refresh tokens still work.
 */
function reuseScenario(Book: typeof GrantBook): ReuseOutcome {
  const warnings: string[] = [];
  const book = new Book<string>({
    codeTTL: 60_000,
    tokenTTL: 3_600_000,
    refreshTTL: DAY,
    clock: manualClock(),
    strict: true,
    log: { info() {}, warn: (m) => void warnings.push(m), error() {} },
    label: 'reuse scenario',
  });
  const { verifier, challenge } = pkce();
  const code = book.issueCode({ clientId: 'app', redirectURI: RP_REDIRECT, challenge, scope: 'openid', user: 'alice' });
  const issued = book.exchange(
    { grant_type: 'authorization_code', code, redirect_uri: RP_REDIRECT, code_verifier: verifier },
    { id: 'app', authenticated: true },
  );
  if ('error' in issued) throw new Error(`the code exchange failed: ${issued.error}`);
  const spent = book.issueRefresh(issued);
  const rotated = book.refresh({ refresh_token: spent }, 'app');
  if ('error' in rotated || !rotated.refreshToken) throw new Error('the first refresh failed');
  const replay = book.refresh({ refresh_token: spent }, 'app');
  return {
    replay,
    newestAccessAlive: book.accessGrant(rotated.token) !== undefined,
    newestRefresh: book.refresh({ refresh_token: rotated.refreshToken }, 'app'),
    warnings,
  };
}

const GRANTS = fileURLToPath(new URL('../../lib/providers/oauth2-server/grants.ts', import.meta.url));
/** The reuse check of GrantBook.refresh(): the block a mutant goes without. */
const REUSE_CHECK = /^[ \t]*if \(entry\.spent\) \{[^}]*\}\n/gm;

/** grants.ts without its reuse check, written beside nothing of the project and imported. */
async function mutantGrantBook(t: ExecutionContext): Promise<typeof GrantBook> {
  const source = readFileSync(GRANTS, 'utf8');
  t.is(source.match(REUSE_CHECK)?.length, 1, 'grants.ts has one reuse check to remove: refresh() was refactored?');
  const mutated = source.replace(REUSE_CHECK, '');
  t.not(mutated, source);
  t.false(/if \(entry\.spent\)/.test(mutated));
  // Its relative imports point at the real lib files (tsx maps their .js specifiers to the .ts sources).
  let rewritten = 0;
  const standalone = mutated.replace(/from '(\.\.?\/[^']+)'/g, (_, spec: string) => {
    rewritten++;
    return `from '${pathToFileURL(resolve(dirname(GRANTS), spec)).href}'`;
  });
  t.true(rewritten > 0);
  t.false(/from '\./.test(standalone), 'no relative import is left');
  // .mts: an ES module wherever it is written, with no package.json to say so.
  const file = join(tempDir(t, 'authkoa-mutant-'), 'grants.mts');
  writeFileSync(file, standalone);
  const mutant = await importSource<typeof import('../../lib/providers/oauth2-server/grants.js')>(file);
  t.not(mutant.GrantBook, GrantBook);
  return mutant.GrantBook;
}

test('mutation: without the reuse check in GrantBook.refresh() a spent refresh token presented again revokes nothing, while the real GrantBook revokes the family', async (t) => {
  const real = reuseScenario(GrantBook);
  t.like(real.replay, { error: 'invalid_grant' });
  t.false(real.newestAccessAlive);
  t.like(real.newestRefresh, { error: 'invalid_grant' });
  t.is(real.warnings.length, 1);

  const mutant = reuseScenario(await mutantGrantBook(t));
  t.false('error' in mutant.replay, 'the mutant even issues tokens for the spent refresh token');
  t.true(mutant.newestAccessAlive);
  t.false('error' in mutant.newestRefresh);
  t.deepEqual(mutant.warnings, []);
});
