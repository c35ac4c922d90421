/**
 * Signing keys for the bench only (the EdDSA and ES256 rows): fixed, so every bench server process
 * accepts the tokens one of them signs. Never use them anywhere else.
 */
export const BENCH_KEYS = {
  EdDSA:
    '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIKhB07NzGymkCvSlHDm05UcFjW76NbRTrqtYfUoeFTEQ\n-----END PRIVATE KEY-----\n',
  ES256:
    '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgoK9xuMXicZcb9Vr8\nUJmDwYzYDZTIDE0P2F/ZEOWnDHGhRANCAASGPTx6kotP3oQ2JDxqrdxTsLhwYwpF\nH/u2xvNkjCGuq5OTa+qq2vGSNjR3u/zhDvvaBMjqeZ/NCUb1Nzh5m564\n-----END PRIVATE KEY-----\n',
} as const;
