/**
 * The Shared Signals transmitter's own error code, with its one status: the feature's `errors` (feature.ts), added
 * to the OpenAPI document's `ErrorCode` enum when the `ssf` option is set.
 */
export const SSF_ERRORS = {
  /** An SSF route (the stream, the poll) without a receiver's credential as `Authorization: Bearer`. */
  ssf_unauthorized: 401,
} as const;

declare module '../errors.js' {
  interface FeatureErrorCodes {
    ssf_unauthorized: true;
  }
}
