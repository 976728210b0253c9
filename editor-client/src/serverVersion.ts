/** Which prscope versions this extension works with: one range, kept in package.json
 * (`prscopeServer.versions`, which tests/test_packaging.py checks `prscope --version` against), and
 * the comparison of a server's version with it. Pure: no `vscode`. */

import packageJson from "../package.json";

export const SUPPORTED_SERVER_VERSIONS: string = packageJson.prscopeServer.versions;

const COMPARATOR = /^(>=|<=|>|<|==)?\s*(\d+(?:\.\d+)*)$/;

/** The release numbers of a version ("0.1.0", "1.2", "0.2.0rc1" -> [0, 2, 0]); undefined when it has none. */
export function releaseOf(version: string): number[] | undefined {
  const match = /^\s*v?(\d+(?:\.\d+)*)/.exec(version);
  return match?.[1]?.split(".").map(Number);
}

function compare(a: number[], b: number[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) {
      return difference;
    }
  }
  return 0;
}

/** Whether `version` is in `range`: space-separated comparators, all of which must hold (">=0.1.0 <0.2.0"). */
export function satisfies(version: string, range: string = SUPPORTED_SERVER_VERSIONS): boolean {
  const release = releaseOf(version);
  if (release === undefined) {
    return false;
  }
  return range
    .trim()
    .split(/\s+/)
    .every((part) => {
      const match = COMPARATOR.exec(part);
      if (match === null) {
        return false;
      }
      const bound = (match[2] ?? "").split(".").map(Number);
      const order = compare(release, bound);
      switch (match[1] ?? "==") {
        case ">=":
          return order >= 0;
        case ">":
          return order > 0;
        case "<=":
          return order <= 0;
        case "<":
          return order < 0;
        default:
          return order === 0;
      }
    });
}

/** The one message for a server whose version is outside the range: "prscope 0.0.9 in /usr/bin/python3
 * is older than this extension works with (>=0.1.0 <0.2.0)". */
export function versionMismatch(version: string, where: string, range: string = SUPPORTED_SERVER_VERSIONS): string {
  const release = releaseOf(version);
  const low = /^>=?\s*(\d+(?:\.\d+)*)$/;
  const older =
    release !== undefined &&
    range
      .trim()
      .split(/\s+/)
      .some((part) => {
        const bound = low.exec(part)?.[1];
        return bound !== undefined && !satisfies(version, part) && compare(release, bound.split(".").map(Number)) <= 0;
      });
  const side = release === undefined ? "not a version" : older ? "older than" : "newer than";
  return `prscope ${version} in ${where} is ${side} this extension works with (${range})`;
}
