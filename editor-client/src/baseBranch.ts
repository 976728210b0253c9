/** Which branch a pull request is reviewed against: the configured one, else an obvious one from the
 * repository's branches, else the user picks from a list. Pure: the branches come from git.ts. */

export interface Branch {
  /** "main", or "origin/main" for a remote branch. */
  name: string;
  remote: boolean;
}

/** The same order the engine tries when it has no base (analysis/changeset). */
const OBVIOUS_BASES = ["origin/main", "origin/master", "main", "master", "upstream/main", "upstream/master"];

/** The obvious base for `current`, or undefined when there is none (the user is then asked). On `main`
 * itself, `origin/main` is still obvious: the review covers the commits not pushed yet. */
export function obviousBase(branches: readonly Branch[], current: string | undefined): string | undefined {
  const names = new Set(branches.map((branch) => branch.name));
  return OBVIOUS_BASES.find((name) => names.has(name) && name !== current);
}

export interface BranchChoice {
  label: string;
  description: string;
}

/** Branches to pick a base from: local ones first, then remote ones; the current branch and symbolic
 * HEADs left out. */
export function branchChoices(branches: readonly Branch[], current: string | undefined): BranchChoice[] {
  const seen = new Set<string>();
  const usable = branches.filter((branch) => {
    const fresh = !seen.has(branch.name);
    seen.add(branch.name);
    return fresh && branch.name !== current && branch.name !== "HEAD" && !branch.name.endsWith("/HEAD");
  });
  const sorted = [...usable].sort(
    (a, b) => Number(a.remote) - Number(b.remote) || a.name.localeCompare(b.name),
  );
  return sorted.map((branch) => ({ label: branch.name, description: branch.remote ? "remote branch" : "local branch" }));
}
