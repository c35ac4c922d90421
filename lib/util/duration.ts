/** A duration: milliseconds as a number, or text such as '30s', '5m', '24h', '7d' (also 'ms'). */
export type Duration = number | string;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/**
 * Parses a Duration into milliseconds. Throws a TypeError naming `option` for anything else
 * (negative, NaN, unknown unit), so a typo fails at start-up rather than at the first login. The
 * message has no prefix: the caller says where the option lives (`authKoa:`, a provider entry, the CLI).
 */
export function parseDuration(value: Duration, option: string): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value > 0) return value;
  } else if (typeof value === 'string') {
    const m = PATTERN.exec(value.trim());
    if (m) {
      const ms = Number(m[1]) * UNIT_MS[m[2]];
      if (ms > 0) return ms;
    }
  }
  throw new TypeError(
    `${option} must be a positive number of milliseconds or a string like '30s', '5m', '24h', '7d' (got ` +
      `${JSON.stringify(value)})`,
  );
}
