import { describe, expect, test } from "vitest";
import { type Branch, branchChoices, obviousBase } from "../src/baseBranch";

const local = (name: string): Branch => ({ name, remote: false });
const remote = (name: string): Branch => ({ name, remote: true });

describe("obviousBase", () => {
  test("origin/main before main", () => {
    expect(obviousBase([local("main"), remote("origin/main"), local("feature")], "feature")).toBe("origin/main");
  });

  test("a local main or master when there is no remote", () => {
    expect(obviousBase([local("master"), local("feature")], "feature")).toBe("master");
  });

  test("never the branch under review itself", () => {
    expect(obviousBase([local("main")], "main")).toBeUndefined();
  });

  test("on main, its remote counterpart is the base (the commits not pushed yet)", () => {
    expect(obviousBase([local("main"), remote("origin/main")], "main")).toBe("origin/main");
  });

  test("nothing obvious: the user is asked", () => {
    expect(obviousBase([local("develop"), local("feature")], "feature")).toBeUndefined();
  });
});

describe("branchChoices", () => {
  test("local branches first, then remote ones; current and HEAD refs left out, duplicates once", () => {
    const choices = branchChoices(
      [remote("origin/HEAD"), remote("origin/develop"), local("feature"), local("develop"), local("develop"), local("release")],
      "feature",
    );
    expect(choices).toEqual([
      { label: "develop", description: "local branch" },
      { label: "release", description: "local branch" },
      { label: "origin/develop", description: "remote branch" },
    ]);
  });
});
