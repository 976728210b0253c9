import { describe, expect, test } from "vitest";
import {
  type DiagnosticLike,
  type Finding,
  findingDescription,
  findingFromDiagnostic,
  groupFindings,
  severityCounts,
} from "../src/findings";

function diagnostic(line: number, severity: number, extra: Partial<DiagnosticLike> = {}): DiagnosticLike {
  return {
    range: { start: { line, character: 4 } },
    severity,
    message: "Call to `fetch` no longer matches its signature\nMissing new required argument `timeout`.",
    source: "prscope",
    code: "breaking-call",
    data: { id: `id-${line}`, title: "Call to `fetch` no longer matches its signature", origin: "check", confidence: 1 },
    ...extra,
  };
}

function finding(uri: string, line: number, severity: Finding["severity"], rule = "bug"): Finding {
  return {
    uri,
    path: uri.replace("file:///repo/", ""),
    line,
    character: 0,
    severity,
    rule,
    title: `${rule} at ${line}`,
    message: "",
    origin: "check",
    confidence: undefined,
    id: undefined,
  };
}

describe("findingFromDiagnostic", () => {
  test("reads rule, title, origin and confidence from the diagnostic and its data", () => {
    expect(findingFromDiagnostic("file:///repo/app.py", "app.py", diagnostic(2, 0))).toEqual({
      uri: "file:///repo/app.py",
      path: "app.py",
      line: 2,
      character: 4,
      severity: "error",
      rule: "breaking-call",
      title: "Call to `fetch` no longer matches its signature",
      message: "Missing new required argument `timeout`.",
      origin: "check",
      confidence: 1,
      id: "id-2",
    });
  });

  test("other tools' diagnostics are not findings", () => {
    expect(findingFromDiagnostic("u", "p", diagnostic(0, 0, { source: "Pylance" }))).toBeUndefined();
  });

  test("without data, the message's first line is the title; code objects give their value", () => {
    const found = findingFromDiagnostic("u", "p", diagnostic(0, 2, { data: undefined, code: { value: "secret" } }));
    expect(found).toMatchObject({
      title: "Call to `fetch` no longer matches its signature",
      message: "Missing new required argument `timeout`.",
      rule: "secret",
      severity: "note",
      origin: undefined,
    });
  });

  test("a model finding is described with its confidence", () => {
    const data = { title: "fetch() has no default timeout", origin: "model", confidence: 0.9 };
    const found = findingFromDiagnostic("u", "pkg/util.py", diagnostic(0, 1, { data, code: "error-handling" }));
    expect(found && findingDescription(found)).toBe("model, 90% confidence · line 1 · error-handling");
    expect(found?.message).toBe(diagnostic(0, 1).message);
  });

  test("a check finding says so", () => {
    const found = findingFromDiagnostic("u", "app.py", diagnostic(2, 0));
    expect(found && findingDescription(found)).toBe("check · line 3 · breaking-call");
  });
});

describe("groupFindings", () => {
  test("groups by file, then severity (errors first), then line", () => {
    const groups = groupFindings([
      finding("file:///repo/b.py", 9, "warning"),
      finding("file:///repo/b.py", 2, "warning"),
      finding("file:///repo/b.py", 5, "error"),
      finding("file:///repo/a.py", 1, "note"),
    ]);
    expect(groups.map((group) => [group.path, group.count])).toEqual([
      ["b.py", 3],
      ["a.py", 1],
    ]);
    const [b] = groups;
    expect(b?.severities.map((group) => [group.severity, group.findings.map((f) => f.line)])).toEqual([
      ["error", [5]],
      ["warning", [2, 9]],
    ]);
  });

  test("files with equally bad findings are sorted by path", () => {
    const groups = groupFindings([finding("file:///repo/z.py", 1, "error"), finding("file:///repo/m.py", 1, "error")]);
    expect(groups.map((group) => group.path)).toEqual(["m.py", "z.py"]);
  });

  test("same line: by column, then rule", () => {
    const early = { ...finding("file:///repo/a.py", 3, "error", "secret"), character: 1 };
    const late = { ...finding("file:///repo/a.py", 3, "error", "bug"), character: 7 };
    const same = finding("file:///repo/a.py", 3, "error", "bug");
    const [group] = groupFindings([late, early, { ...same, character: 1 }]);
    expect(group?.severities[0]?.findings.map((f) => [f.character, f.rule])).toEqual([
      [1, "bug"],
      [1, "secret"],
      [7, "bug"],
    ]);
  });

  test("counts by severity", () => {
    const counts = severityCounts([finding("u", 1, "error"), finding("u", 2, "note"), finding("u", 3, "note")]);
    expect(counts).toEqual({ error: 1, warning: 0, note: 2 });
  });
});
