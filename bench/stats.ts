/** The statistics the bench reports: medians of rounds, and how far a median can be trusted. */

/** The median (for an even count, the upper of the two middle values). */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

/**
 * A distribution-free interval for the median of `xs`: the k-th smallest and k-th largest value, k the
 * largest rank with P(Binomial(n, ½) < k) ≤ (1 − confidence) / 2, so that the true median lies between
 * them with at least that confidence, whatever the shape of the round-to-round spread. Undefined when
 * there are too few rounds for any such interval (fewer than 6 at 95 %).
 */
export function medianInterval(xs: number[], confidence = 0.95): [number, number] | undefined {
  const n = xs.length;
  const tail = (1 - confidence) / 2;
  // P(B < k) for B ~ Binomial(n, ½), accumulated term by term: C(n, i) / 2^n.
  let below = 0;
  let term = 2 ** -n;
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (below + term > tail) break;
    below += term;
    k = i + 1;
    term = (term * (n - i)) / (i + 1);
  }
  if (k < 1) return undefined;
  const sorted = [...xs].sort((a, b) => a - b);
  return [sorted[k - 1]!, sorted[n - k]!];
}
