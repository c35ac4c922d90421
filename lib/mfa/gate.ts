import type { Context } from 'koa';
import { writeJSON } from '../http/respond.js';
import type { SecondFactor } from '../providers/core/provider.js';
import type { IdentifiedLogin, SecondStepGate } from '../session/login.js';
import { omit } from '../util/omit.js';
import type { Factors } from './factors.js';
import type { MfaConfig } from './options.js';
import type { PartialLogins, PendingLogin } from './partial.js';

/** What the gate works with. */
export interface GateParts {
  config: MfaConfig;
  factors: Factors;
  partials: PartialLogins;
  /** The second factors the configured providers offer (the passkey kind's), by provider name. */
  secondFactors: () => Array<{ provider: string; factor: SecondFactor }>;
  /** The absolute URL of a `from` the redirect policy permits, else undefined. */
  safeRedirect: (from: string | undefined) => string | undefined;
  /** The public base URL, no trailing slash. */
  url: string;
}

/**
 * The second factor's place in every login, whatever its kind: after the first factor (and the
 * postAuthHook), a user with TOTP on, or any user `mfa.required` names, gets no session but a partial
 * login (partial.ts). A JSON login answers `{"mfa_required": true, "factors": [...]}` (200: the first
 * step passed); a login that ends a browser navigation, or has a `from` to go to, is redirected to the
 * second-step page with that `from`.
 */
export function mfaGate(parts: GateParts): SecondStepGate {
  const { config, partials } = parts;
  return {
    async intercept(ctx, login) {
      const factors = await offeredFactors(parts, login);
      let enroll = false;
      if (!factors.includes('totp')) {
        if (!config.required || !(await config.required(login.user))) return false;
        // Required and nothing to answer with: the user sets a factor up before the session starts.
        enroll = factors.length === 0;
      }
      const identified = omit(login, 'navigation');
      const pending: PendingLogin = { ...identified, factors, enroll: enroll || undefined };
      partials.begin(ctx, pending);
      answerPending(ctx, parts, login, pending);
      return true;
    },
  };
}

/**
 * The factors the user may answer with: TOTP and recovery codes when on, and a passkey unless the first step was that
 * very passkey provider.
 */
async function offeredFactors(parts: GateParts, login: IdentifiedLogin): Promise<string[]> {
  const summary = await parts.factors.summary(login.user.id);
  const factors: string[] = [];
  if (summary.totp) factors.push('totp');
  if (summary.recoveryCodesLeft > 0) factors.push('recovery');
  for (const { provider, factor } of parts.secondFactors()) {
    if (provider === login.provider || factors.includes(factor.factor)) continue;
    if ((await factor.count(login.user.id)) > 0) factors.push(factor.factor);
  }
  return factors;
}

/** The answer of a login whose second step is pending: the page for a browser on its way somewhere, else JSON. */
function answerPending(ctx: Context, parts: GateParts, login: IdentifiedLogin, pending: PendingLogin): void {
  const permitted = parts.safeRedirect(login.from);
  if (permitted || login.navigation) {
    const page = parts.config.page.startsWith('/') ? parts.url + parts.config.page : parts.config.page;
    const target = new URL(page);
    if (permitted) target.searchParams.set('from', login.from!);
    ctx.status = 303;
    ctx.redirect(target.href);
    return;
  }
  writeJSON(
    ctx,
    200,
    pending.enroll
      ? { mfa_required: true, enroll_required: true, factors: [] }
      : { mfa_required: true, factors: pending.factors },
  );
}
