/**
 * Known option names, checked so that a misspelled option is a start-up error instead of a default
 * silently kept. `optionNames<T>({...})` takes every key of T and nothing else (the compiler checks
 * both ways), so a list cannot drift from the interface it guards.
 */
export function optionNames<T>(keys: Record<keyof T, true>): readonly string[] {
  return Object.keys(keys);
}

/**
 * The message for an option that is not among `known`: names it and, when one is close (a typo, a
 * case slip), the option that was probably meant.
 */
export function unknownOption(key: string, known: readonly string[]): string {
  const guess = closest(key, known);
  return `unknown option "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}`;
}

/** Throws a TypeError (prefixed with `at`) for the first key of `given` not in `known`. */
export function checkOptionNames(given: object, known: readonly string[], at: string): void {
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) throw new TypeError(`${at}${unknownOption(key, known)}`);
  }
}

/** The candidate within a small edit distance of `word` (case ignored), the nearest one. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(w.length / 4)) + 1;
  for (const c of candidates) {
    const d = distance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance with adjacent transpositions counted as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
