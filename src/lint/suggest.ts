/** "Did you mean": the known word a mistyped one is closest to, if it is close enough to be a typo. */

/**
 * Edit distance with transpositions (optimal string alignment): insertions, deletions, substitutions
 * and swaps of two neighbours each cost 1. Compared without case, so `X-Access` is `x-access`.
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[s.length]![t.length]!;
}

/**
 * The candidate closest to `word` when it is within a typo's reach: 1 edit for words of up to 4
 * characters, 2 for longer ones (`x_access`, `x-ondelete` and `emial` are 1 edit away). The first of
 * equally close candidates wins; undefined when none is close.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const reach = word.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const distance = editDistance(word, c);
    if (distance <= reach && distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  return best;
}
