import test, { type ExecutionContext } from 'ava';
import { manualClock } from '../helpers/http.js';
import { checkKeySet } from './checks.js';
import { BASIC_MODULES, type Run } from './modules.js';
import { authkoaProvider, CLIENTS, type ProviderUnderTest } from './providers.js';
import { relyingParty, RELYING_PARTIES, type RelyingParty, type RelyingPartyKind } from './relying-parties.js';

/**
 * Registers a certification plan's modules as tests: each module against our provider, once with
 * openid-client and once with oauth4webapi, each run on a provider of its own (its own clock).
 */
export function certificationPlan(mode: Run['mode'], under: PlanProvider = LOCAL_SERVER): void {
  for (const [name, module] of Object.entries(BASIC_MODULES))
    for (const kind of RELYING_PARTIES)
      // One module at a time: 72 providers at once, each with its servers, ran out of time to connect on a loaded machine.
      test.serial(`${name} passes with ${kind}${under.label}`, async (t) => {
        const clock = manualClock();
        const provider = await under.start(clock);
        t.teardown(() => provider.close());
        const outcome = await module(await runOf(t, provider, { mode, kind, now: clock }));
        const chosen = CHOSEN[name];
        if (chosen) t.like(outcome, chosen, 'the outcome we chose where the suite accepts several');
      });
}

/** Which of our providers a plan runs against: how to start it, and what its tests' titles add. */
export interface PlanProvider {
  start(clock: ReturnType<typeof manualClock>): Promise<ProviderUnderTest>;
  label: string;
}

/** The local server (`kind: 'server'`'s), standalone. */
export const LOCAL_SERVER: PlanProvider = { start: authkoaProvider, label: '' };

/** Where a module passes with several outcomes: the one this provider gives (docs/providers-server.md, Conformance). */
const CHOSEN: Record<string, Record<string, unknown>> = {
  'oidcc-response-type-missing': { error: 'invalid_request' },
  'oidcc-userinfo-post-body': { status: 200 },
  'oidcc-ensure-post-request-succeeds': { post: 'ok' },
  'oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported': { requestObject: 'processed' },
  'oidcc-ensure-request-object-with-redirect-uri': { requestObject: 'processed' },
};

/** What a module needs to run: the provider's discovery and key set (checked as the suite does), and its clients. */
export async function runOf(
  t: ExecutionContext,
  provider: ProviderUnderTest,
  o: { mode: Run['mode']; kind: RelyingPartyKind; now: () => number },
): Promise<Run> {
  const meta = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as Run['meta'];
  const keys = await checkKeySet(t, meta.jwks_uri);
  const parties = new Map<string, RelyingParty>();
  return {
    t,
    provider,
    mode: o.mode,
    keys,
    meta,
    now: o.now,
    async rp(client = 'basic') {
      const known = parties.get(client);
      if (known) return known;
      const made = await relyingParty(o.kind, provider.issuer, CLIENTS[client]);
      parties.set(client, made);
      return made;
    },
  };
}
