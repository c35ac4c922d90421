/**
 * What TypeScript makes of `providers` and of `ctx.state.user`. Not a test file: it is compiled, under
 * `strict`, by consume.test.ts in the packed-tarball consumer and by spec/core/doc-snippets.test.ts
 * against lib/. Each `@ts-expect-error` line must be an error (else TS2578) and no other line may be.
 */
import Koa from 'koa';
import Router from '@koa/router';
import { authKoa, registerProvider, type ProviderEntry, type ProviderOptions, type User } from 'authkoa';

/** True exactly when A and B are the same type (`any` equals nothing else). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// A kind's functions get their parameter types from the kind: the checker's are strings, not any.
const direct: ProviderEntry = {
  kind: 'direct',
  name: 'local',
  checker: (user, passwd) => {
    const inferred: [Equal<typeof user, string>, Equal<typeof passwd, string>] = [true, true];
    return inferred.every(Boolean) && user === passwd;
  },
};
export const dev: ProviderEntry[] = [{ kind: 'dev', emailFunc: (name) => name.toLowerCase() + '@corp.test' }];

// A misspelled option, an option of the wrong type, a missing one, a kind nobody declared: all errors.
// @ts-expect-error checkr is no option of the direct kind
export const misspelled: ProviderEntry = { kind: 'direct', name: 'l', checkr: () => true };
// @ts-expect-error a Telegram token is a string
export const wrongType: ProviderEntry = { kind: 'telegram', token: 123 };
// @ts-expect-error a direct provider needs its checker
export const missing: ProviderEntry = { kind: 'direct', name: 'l' };
// @ts-expect-error no kind 'drect' is declared
export const unknownKind: ProviderEntry = { kind: 'drect', name: 'l', checker: () => true };

// A built-in name stands for its kind; any other name needs one.
export const byName: ProviderEntry[] = [
  { name: 'github', cid: 'id', csecret: 'secret' },
  { name: 'x', cid: 'id', csecret: 'secret' },
  { name: 'dev' },
  { name: 'apple', clientId: 'com.example.web', teamId: 'ABCDE12345', keyId: 'XYZ987WVUT', privateKeyPath: './key.p8' },
  { name: 'passkey', rpName: 'Example' },
  { kind: 'social', name: 'ghe', preset: 'github', cid: 'id', csecret: 'secret' },
];
// @ts-expect-error gitub is not a built-in name
export const typo: ProviderEntry = { name: 'gitub', cid: 'id', csecret: 'secret' };
// @ts-expect-error a dev provider under another name needs kind: 'dev'
export const unnamed: ProviderEntry = { name: 'mydev', port: 8084 };

// A third-party kind: registered for run time, declared in ProviderKinds for TypeScript.
interface ApiTokenOptions extends ProviderOptions {
  kind: 'api-token';
  lookup: (key: string) => Promise<User | undefined>;
}
declare module 'authkoa' {
  interface ProviderKinds {
    'api-token': ApiTokenOptions;
  }
}
registerProvider<ApiTokenOptions>({
  kind: 'api-token',
  create: (opts) => ({ name: opts.name ?? 'api-token', login: async () => {}, logout: async () => {} }),
});
const apiToken: ProviderEntry = {
  kind: 'api-token',
  name: 'keys',
  lookup: async (key) => {
    const inferred: Equal<typeof key, string> = true;
    return inferred && key === 'k' ? { id: 'keys_1', name: 'k', picture: '' } : undefined;
  },
};
// An entry read at run time is asserted to be one.
const fromConfig = JSON.parse('{"kind":"direct"}') as { kind: string; name?: string };
export const configured = fromConfig as ProviderEntry;

// After the route middleware, ctx.state.user is a User or undefined, in @koa/router routes and in Koa's own.
const auth = authKoa({
  url: 'http://localhost:8080',
  secret: process.env.AUTH_SECRET!,
  providers: [direct, apiToken, ...byName],
});
const router = new Router();
router.get('/me', auth.middleware.auth, (ctx) => {
  const exact: Equal<typeof ctx.state.user, User | undefined> = true;
  ctx.body = { exact, name: ctx.state.user?.name };
});
const app = new Koa();
app.use(auth);
app.use(router.routes());
app.use((ctx) => {
  // @ts-expect-error the type keeps the undefined: a route without `auth` may have no user
  const user: User = ctx.state.user;
  ctx.body = user;
});
