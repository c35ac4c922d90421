import test from 'ava';
import { manualClock } from '../helpers/http.js';
import { checkKeySet } from './checks.js';
import { BASIC_MODULES, type Run } from './modules.js';
import { authkoaProvider, CLIENTS } from './providers.js';
import { relyingParty, RELYING_PARTIES, type RelyingParty } from './relying-parties.js';

/**
 * Registers a certification plan's modules as tests: each module against our provider, once with
 * openid-client and once with oauth4webapi, each run on a provider of its own (its own clock).
 */
export function certificationPlan(mode: Run['mode']): void {
  for (const [name, module] of Object.entries(BASIC_MODULES))
    for (const kind of RELYING_PARTIES)
      test(`${name} passes with ${kind}`, async (t) => {
        const clock = manualClock();
        const provider = await authkoaProvider(clock);
        t.teardown(() => provider.close());
        const meta = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as {
          jwks_uri: string;
        };
        const keys = await checkKeySet(t, meta.jwks_uri);
        const parties = new Map<string, RelyingParty>();
        const run: Run = {
          t,
          provider,
          mode,
          keys,
          now: clock,
          async rp(client = 'basic') {
            const known = parties.get(client);
            if (known) return known;
            const made = await relyingParty(kind, provider.issuer, CLIENTS[client]);
            parties.set(client, made);
            return made;
          },
        };
        await module(run);
      });
}
