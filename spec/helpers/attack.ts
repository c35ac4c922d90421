import { createHmac } from 'node:crypto';
import { registerProvider, type ProviderModule } from '../../lib/index.js';

/** Entries of the test kind below, `{ kind: 'from-echo', name }`, as TypeScript sees them. */
declare module '../../lib/index.js' {
  interface ProviderKinds {
    'from-echo': { kind: 'from-echo'; name: string };
  }
}

/** Signs any header and payload with HMAC-SHA256 under `secret`: the attacker's token factory. */
export function forgeToken(payload: object, secret: string, header: object = { alg: 'HS256', typ: 'JWT' }): string {
  const h = Buffer.from(JSON.stringify(header)).toString('base64url');
  const p = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${h}.${p}.${createHmac('sha256', secret).update(`${h}.${p}`).digest('base64url')}`;
}

/** Decodes a JWT payload without verifying it. */
export function payloadOf(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

let registered = false;

/**
 * A provider kind for the attack tests: `GET /auth/<name>/login?user=&from=&picture=` logs `user` in at
 * once and hands `from` and `picture` to the shared completeLogin, the path every real provider takes.
 */
export function registerFromEchoKind(): void {
  if (registered) return;
  registered = true;
  const module: ProviderModule = {
    kind: 'from-echo',
    create(opts, deps) {
      const name = String(opts.name);
      return {
        name,
        kind: 'from-echo',
        async login(ctx) {
          const user = String(ctx.query.user ?? 'visitor');
          const picture = typeof ctx.query.picture === 'string' ? ctx.query.picture : '';
          await deps.completeLogin(ctx, {
            provider: name,
            user: { name: user, id: `${name}_${user}`, picture },
            from: ctx.query.from as string | undefined,
          });
        },
        async logout(ctx) {
          deps.endSession(ctx);
        },
      };
    },
  };
  registerProvider(module);
}
