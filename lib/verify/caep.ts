/**
 * The names both ends of the Shared Signals channel agree on: the app's transmitter (lib/ssf/) and the receiver
 * of `authkoa/verify` (signals.ts). Kept here, in the receiver's package entry, so the transmitter depends on it
 * and not the other way round.
 */

export const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
export const SESSION_REVOKED = `${CAEP}session-revoked`;
export const CREDENTIAL_CHANGE = `${CAEP}credential-change`;
/**
 * The member of a user-wide session-revoked naming the one session the app kept ("log out everywhere else", a
 * password changed in that session). A receiver that does not know it refuses every session: the safe reading.
 */
export const KEPT_SID = 'authkoa_kept_sid';
/** A credential type authkoa names besides CAEP's own (CAEP 1.0 §3.3.1: "supported mutually"): a personal token. */
export const PERSONAL_TOKEN = 'authkoa-personal-token';
