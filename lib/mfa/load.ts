import type { MfaConfig } from './options.js';
import type { Mfa, MfaRuntime, MfaServiceConfig } from './service.js';

/**
 * The second factor as the service holds it: its code (lib/mfa, and `uqr` for QR codes) is loaded only
 * when the `mfa` option is set, as a provider kind is only when configured. Loading starts at once;
 * start-up waits for it, and so does every request (they wait for start-up).
 */
export function loadMfa(config: MfaConfig, o: MfaServiceConfig, run: MfaRuntime): Mfa {
  const loaded = import('./service.js').then((m) => m.createMfa(config, o, run));
  loaded.catch(() => undefined); // start() rejects with it, naming what failed
  const routes: Mfa['routes'] = async (ctx, next) => {
    await (await loaded).routes(ctx, next);
  };
  return {
    gate: { intercept: async (ctx, login) => (await loaded).gate.intercept(ctx, login) },
    routes,
    status: async (userId) => (await loaded).status(userId),
    reset: async (userId) => (await loaded).reset(userId),
    start: async () => (await loaded).start(),
    close: async () => (await loaded.catch(() => undefined))?.close(),
  };
}
