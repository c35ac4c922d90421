import type { AvatarProxyImpl } from '../avatar/proxy.js';
import { AuthError } from '../errors.js';
import type { AuthEventBus } from '../events/bus.js';
import type { FeatureSet } from '../features/set.js';
import type { ResolvedOptions } from '../options/resolved.js';
import { checkSecretReader } from '../options/secret.js';
import type { KindDeps } from '../providers/core/contract.js';
import type { planProviders, ProviderRegistry } from '../providers/core/resolve.js';
import type { SharedState } from '../state/shared.js';
import type { RevocationWatch } from '../session/revocation-watch.js';
import { isStoreTarget, loadStoreBackend } from '../avatar/stores/open.js';
import type { InstanceTelemetry } from '../telemetry/instance.js';
import { loadWithPackage } from '../util/optional.js';

/**
 * An instance's start-up: the optional packages and backends its options need, the stores checked, the
 * features and the providers created, in that order; a failure closes what had started.
 */

/** Start-up under way, as the service follows it. */
export interface StartUp {
  /** Rejects with the start-up error (after closing what had started); `ready` is the caller's copy. */
  starting: Promise<void>;
  /** Resolves once start-up has settled, either way: what close() waits for. */
  settled: Promise<void>;
  /** Undefined once started; until then a promise a request waits for, rejected with a 503 after a failure. */
  waitForStart: () => Promise<void> | undefined;
}

export interface StartParts {
  plans: ReturnType<typeof planProviders>;
  providers: ProviderRegistry;
  deps: KindDeps;
  state: SharedState;
  /** The revocation channel, followed once the state store has started. */
  watch: RevocationWatch | undefined;
  avatarProxy: AvatarProxyImpl;
  features: FeatureSet;
  telemetry: InstanceTelemetry;
  events: AuthEventBus;
}

/**
 * Starts the service: a failure is logged and closes the avatar proxy and the stores again. `ready`
 * rejects at once, without waiting for that: a store still trying to connect may take its own timeout
 * to let go, and the bound on start-up is `storeCheckTimeout`. close() waits for it.
 */
export function startService(o: ResolvedOptions, parts: StartParts): StartUp {
  let closing: Promise<unknown> = Promise.resolve();
  const starting = start(o, parts).catch((err: Error) => {
    o.logger.error(`authkoa did not start: ${err.message}`, { code: 'not_started' });
    parts.watch?.close();
    closing = Promise.allSettled([parts.avatarProxy.close(), parts.state.close(), parts.features.close()]);
    throw err;
  });
  // The service's own view of start-up (`ready` is the caller's handle): once it succeeded there is
  // nothing to wait for; until then a request waits for it, and after a failure it gets a 503.
  let started = false;
  const settled = starting.then(
    () => void (started = true),
    () => closing.then(() => undefined),
  );
  const notStarted = starting.then(
    () => undefined,
    () => Promise.reject(new AuthError('not_started', 'authentication is not available: the service failed to start')),
  );
  notStarted.catch(() => undefined); // a rejection requests receive, not one to report on its own
  return { starting, settled, waitForStart: () => (started ? undefined : notStarted) };
}

/**
 * The asynchronous half of start-up: the optional packages and backend modules the options need are
 * loaded (a missing one rejects naming it), then the providers are created in order.
 */
async function start(
  o: ResolvedOptions,
  { plans, providers, deps, state, watch, features, avatarProxy, telemetry, events }: StartParts,
): Promise<void> {
  const checks: Promise<unknown>[] = [
    state.start(),
    checkSecretReader(o),
    telemetry.start(o.telemetry, events),
    features.start(),
  ];
  if (isStoreTarget(o.avatarStore)) {
    checks.push(loadStoreBackend(o.avatarStore).then(() => avatarProxy.start()));
    // Only resizing decodes images (in a worker, which imports jimp); identicons are encoded without it.
    if (o.avatarResizeLimit > 0)
      checks.push(
        loadWithPackage('jimp', 'avatarResizeLimit', () => Promise.resolve().then(() => import.meta.resolve('jimp'))),
      );
  }
  await Promise.all(checks);
  watch?.start();
  await providers.build(plans, deps);
  // A provider named as a feature's prefix (`sessions`, `mfa`, an application's own) could never be reached.
  features.checkProviders(providers.list().map((p) => p.name));
}
