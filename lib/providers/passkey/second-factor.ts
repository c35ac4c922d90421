import * as webauthn from '@simplewebauthn/server';
import type { SecondFactor } from '../core/provider.js';
import { checkAssertion, readAssertion, type PasskeyParts } from './routes.js';

/**
 * A passkey as the second step of a login (the `mfa` option): a challenge for the passkeys of the user
 * whose first factor passed, answered with one of them. The user is the partial login's, never one the
 * assertion names, so another account's passkey does not pass.
 */
export function passkeySecondFactor(parts: PasskeyParts): SecondFactor {
  const { config, passkeys, challenges } = parts;
  return {
    factor: 'passkey',
    amr: 'hwk',
    async count(userId) {
      return (await passkeys.listByUser(userId)).length;
    },
    async options(_ctx, userId) {
      const mine = await passkeys.listByUser(userId);
      if (mine.length === 0) return undefined;
      const options = await webauthn.generateAuthenticationOptions({
        rpID: config.rpID,
        userVerification: config.userVerification,
        timeout: config.challengeMs,
        allowCredentials: mine.map((p) => ({ id: p.id, transports: p.transports })),
      });
      await challenges.remember(options.challenge, { purpose: 'second-step', userId });
      return options;
    },
    async verify(ctx, userId) {
      const response = await readAssertion(ctx);
      await checkAssertion(
        parts,
        response,
        (c, passkey) => c.purpose === 'second-step' && c.userId === userId && passkey.userId === userId,
      );
    },
  };
}
