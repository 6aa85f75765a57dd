/** "Did you mean …?" for misspelt names: fields, enum values, commands and options. Isomorphic. */

/**
 * Words users type for a name toolyard spells differently: a field by its long or plural form, a preset by
 * its language or package manager. A synonym is suggested only where its name is one of the candidates (so
 * `rust` suggests the preset `cargo`, never a field), and a near-miss of a synonym (`enviroment`) counts too.
 */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  env: ['environment', 'environments', 'envs', 'environmentVariables', 'envVars', 'variables', 'vars'],
  secretEnv: ['secretEnvironment', 'secrets', 'secretEnvs', 'secretVars'],
  cargo: ['rust', 'rustc', 'rustup', 'crates'],
  go: ['golang'],
  python: ['python3', 'py', 'pip', 'pip3', 'uv'],
  node: ['javascript', 'typescript', 'js', 'ts', 'npm', 'nodejs', 'npx', 'pnpm', 'yarn'],
  terraform: ['tf', 'opentofu', 'tofu'],
  helm: ['helm3', 'charts'],
  toolchains: ['tools', 'sidecars'],
  backends: ['backend', 'models'],
};

/** Edits a word of this length may be off by and still count as a typo of a name. */
function typoBudget(word: string): number {
  return Math.max(1, Math.floor(word.length / 4));
}

/** The candidate closest to a misspelt word, if it is close enough to be a plausible typo or a synonym. */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = typoBudget(word) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best !== undefined && bestDistance <= 1) return best;
  const synonym = synonymMatch(lower, candidates);
  return synonym ?? best;
}

/** The candidate a word (or a typo of it) is a synonym of. */
function synonymMatch(lower: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    for (const synonym of SYNONYMS[candidate] ?? []) {
      const distance = editDistance(lower, synonym.toLowerCase());
      if (distance <= (synonym.length >= 5 ? typoBudget(synonym) : 0) && distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
  }
  return best;
}

/** Levenshtein distance, with two swapped neighbours ("handels") counted as one edit. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  let beforePrevious = previous;
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        current[j] = Math.min(current[j]!, beforePrevious[j - 2]! + 1);
      }
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}
