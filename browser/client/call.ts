/** What the feature calls (passkeys, the second factor, sessions, accounts) share. */

/** What every passkey, second-factor, session and account call may take: a signal that aborts its request. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** A JSON object (not an array, not null): what most answers are checked to be first. */
export const isObject = (b: unknown): boolean => !!b && typeof b === 'object' && !Array.isArray(b);
