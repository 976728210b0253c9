/** Findings as the Findings view shows them: read from prscope's diagnostics (their `data` carries the
 * finding's id, title, origin and confidence: server/diagnostics.py), grouped by file, then severity. */

import { DIAGNOSTIC_SOURCE } from "./constants";

export type Severity = "error" | "warning" | "note";
export type Origin = "check" | "model";

export interface Finding {
  uri: string;
  /** The file as shown: relative to its workspace folder. */
  path: string;
  /** 0-based, as in the editor. */
  line: number;
  character: number;
  severity: Severity;
  rule: string;
  title: string;
  message: string;
  origin: Origin | undefined;
  confidence: number | undefined;
  id: string | undefined;
}

/** The parts of a vscode.Diagnostic read here (severity: Error 0, Warning 1, Information 2, Hint 3). */
export interface DiagnosticLike {
  range: { start: { line: number; character: number } };
  severity: number;
  message: string;
  source?: string;
  code?: string | number | { value: string | number } | undefined;
  data?: unknown;
}

export interface SeverityGroup {
  severity: Severity;
  findings: Finding[];
}

export interface FileGroup {
  uri: string;
  path: string;
  count: number;
  severities: SeverityGroup[];
}

export const SEVERITY_ORDER: readonly Severity[] = ["error", "warning", "note"];

export function findingFromDiagnostic(uri: string, path: string, diagnostic: DiagnosticLike): Finding | undefined {
  if (diagnostic.source !== DIAGNOSTIC_SOURCE) {
    return undefined;
  }
  const data = isRecord(diagnostic.data) ? diagnostic.data : {};
  const [firstLine = "", ...rest] = diagnostic.message.split("\n");
  const title = typeof data.title === "string" && data.title !== "" ? data.title : firstLine;
  return {
    uri,
    path,
    line: diagnostic.range.start.line,
    character: diagnostic.range.start.character,
    severity: severityOf(diagnostic.severity),
    rule: codeOf(diagnostic.code),
    title,
    message: title === firstLine ? rest.join("\n").trim() : diagnostic.message,
    origin: data.origin === "check" || data.origin === "model" ? data.origin : undefined,
    confidence: typeof data.confidence === "number" ? data.confidence : undefined,
    id: typeof data.id === "string" ? data.id : undefined,
  };
}

/** Files with the worst findings first (then by path); inside a file, errors, warnings, notes; inside
 * those, by line. */
export function groupFindings(findings: readonly Finding[]): FileGroup[] {
  const byUri = new Map<string, Finding[]>();
  for (const finding of findings) {
    const list = byUri.get(finding.uri) ?? [];
    list.push(finding);
    byUri.set(finding.uri, list);
  }
  const groups = [...byUri.entries()].map(([uri, list]): FileGroup => {
    const severities = SEVERITY_ORDER.map((severity) => ({
      severity,
      findings: list.filter((f) => f.severity === severity).sort(byPosition),
    })).filter((group) => group.findings.length > 0);
    return { uri, path: list[0]?.path ?? uri, count: list.length, severities };
  });
  return groups.sort((a, b) => worstRank(a) - worstRank(b) || a.path.localeCompare(b.path));
}

/** "check · line 3 · breaking-call" or "model, 90% confidence · line 14 · bug": the source first, so
 * that a narrow view, which cuts the end, still shows it. */
export function findingDescription(finding: Finding): string {
  return [originWords(finding), `line ${finding.line + 1}`, finding.rule].filter((part) => part !== "").join(" · ");
}

export function originWords(finding: Finding): string {
  if (finding.origin === "model") {
    return finding.confidence === undefined
      ? "model"
      : `model, ${Math.round(finding.confidence * 100)}% confidence`;
  }
  return finding.origin ?? "";
}

export function severityCounts(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, note: 0 };
  for (const finding of findings) {
    counts[finding.severity] += 1;
  }
  return counts;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function severityOf(value: number): Severity {
  if (value === 0) {
    return "error";
  }
  return value === 1 ? "warning" : "note";
}

function codeOf(code: DiagnosticLike["code"]): string {
  if (code === undefined) {
    return "";
  }
  return typeof code === "object" ? String(code.value) : String(code);
}

function byPosition(a: Finding, b: Finding): number {
  return a.line - b.line || a.character - b.character || a.rule.localeCompare(b.rule);
}

function worstRank(group: FileGroup): number {
  const first = group.severities[0];
  return first === undefined ? SEVERITY_ORDER.length : SEVERITY_ORDER.indexOf(first.severity);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
