/** The Findings view: prscope's diagnostics grouped by file, then severity, with a count badge; a click
 * opens the file at the finding's line. Fed by the client's diagnostics middleware, so it always shows
 * exactly what the Problems panel shows for prscope. */

import * as vscode from "vscode";
import { Commands } from "./constants";
import {
  type FileGroup,
  type Finding,
  findingDescription,
  findingFromDiagnostic,
  groupFindings,
  originWords,
  plural,
  type Severity,
  type SeverityGroup,
  severityCounts,
} from "./findings";

type Node =
  | { kind: "file"; group: FileGroup }
  | { kind: "severity"; group: SeverityGroup; file: FileGroup }
  | { kind: "finding"; finding: Finding };

const SEVERITY_LOOK: Record<Severity, { icon: string; color: string; title: string }> = {
  error: { icon: "error", color: "list.errorForeground", title: "Errors" },
  warning: { icon: "warning", color: "list.warningForeground", title: "Warnings" },
  note: { icon: "info", color: "editorInfo.foreground", title: "Notes" },
};

export class FindingsStore {
  private readonly byUri = new Map<string, Finding[]>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  /** Replaces what is known for `uri` with prscope's diagnostics among `diagnostics`. */
  update(uri: vscode.Uri, diagnostics: readonly vscode.Diagnostic[]): void {
    const path = vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
    const findings = diagnostics
      .map((diagnostic) => findingFromDiagnostic(uri.toString(), path, asDiagnosticLike(diagnostic)))
      .filter((finding): finding is Finding => finding !== undefined);
    const key = uri.toString();
    if (findings.length === 0 && !this.byUri.has(key)) {
      return;
    }
    if (findings.length === 0) {
      this.byUri.delete(key);
    } else {
      this.byUri.set(key, findings);
    }
    this.changed.fire();
  }

  clear(): void {
    this.byUri.clear();
    this.changed.fire();
  }

  all(): Finding[] {
    return [...this.byUri.values()].flat();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function asDiagnosticLike(diagnostic: vscode.Diagnostic): Parameters<typeof findingFromDiagnostic>[2] {
  // The language client's diagnostics carry the server's `data` (a ProtocolDiagnostic).
  const data = (diagnostic as vscode.Diagnostic & { data?: unknown }).data;
  return {
    range: diagnostic.range,
    severity: diagnostic.severity,
    message: diagnostic.message,
    source: diagnostic.source,
    code: diagnostic.code,
    data,
  };
}

export class FindingsTree implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly store: FindingsStore) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    if (node === undefined) {
      return groupFindings(this.store.all()).map((group) => ({ kind: "file", group }));
    }
    if (node.kind === "file") {
      return node.group.severities.map((group) => ({ kind: "severity", group, file: node.group }));
    }
    if (node.kind === "severity") {
      return node.group.findings.map((finding) => ({ kind: "finding", finding }));
    }
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === "file") {
      return fileItem(node.group);
    }
    if (node.kind === "severity") {
      return severityItem(node.group, node.file);
    }
    return findingItem(node.finding);
  }
}

function fileItem(group: FileGroup): vscode.TreeItem {
  const item = new vscode.TreeItem(group.path, vscode.TreeItemCollapsibleState.Expanded);
  item.id = `file:${group.uri}`;
  item.resourceUri = vscode.Uri.parse(group.uri);
  item.iconPath = vscode.ThemeIcon.File;
  item.description = plural(group.count, "finding");
  item.accessibilityInformation = { label: `${group.path}: ${plural(group.count, "finding")}` };
  return item;
}

function severityItem(group: SeverityGroup, file: FileGroup): vscode.TreeItem {
  const look = SEVERITY_LOOK[group.severity];
  const item = new vscode.TreeItem(`${look.title} (${group.findings.length})`, vscode.TreeItemCollapsibleState.Expanded);
  item.id = `severity:${file.uri}:${group.severity}`;
  item.iconPath = new vscode.ThemeIcon(look.icon, new vscode.ThemeColor(look.color));
  return item;
}

function findingItem(finding: Finding): vscode.TreeItem {
  const look = SEVERITY_LOOK[finding.severity];
  const item = new vscode.TreeItem(finding.title, vscode.TreeItemCollapsibleState.None);
  item.id = `finding:${finding.uri}:${finding.id ?? `${finding.rule}:${finding.line}`}:${finding.line}`;
  item.description = findingDescription(finding);
  item.iconPath =
    finding.origin === "model"
      ? new vscode.ThemeIcon("sparkle", new vscode.ThemeColor(look.color))
      : new vscode.ThemeIcon(look.icon, new vscode.ThemeColor(look.color));
  item.tooltip = findingTooltip(finding);
  item.contextValue = `finding.${finding.origin ?? "unknown"}`;
  item.accessibilityInformation = {
    label: `${finding.severity} ${finding.rule} in ${finding.path} line ${finding.line + 1}: ${finding.title} (${originWords(finding) || "unknown source"})`,
  };
  item.command = { command: Commands.revealFinding, title: "Reveal Finding", arguments: [finding] };
  return item;
}

function findingTooltip(finding: Finding): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString();
  tooltip.appendText(`${finding.title}\n\n`);
  if (finding.message !== "") {
    tooltip.appendText(`${finding.message}\n\n`);
  }
  tooltip.appendText(`${finding.path}:${finding.line + 1} · ${finding.rule} · ${originWords(finding) || "unknown source"}`);
  return tooltip;
}

/** The badge on the view: the number of findings, with the count of each severity in its tooltip. */
export function findingsBadge(findings: readonly Finding[]): vscode.ViewBadge | undefined {
  if (findings.length === 0) {
    return undefined;
  }
  const counts = severityCounts(findings);
  const parts = [plural(counts.error, "error"), plural(counts.warning, "warning"), plural(counts.note, "note")];
  return { value: findings.length, tooltip: `prscope: ${parts.join(", ")}` };
}

export async function revealFinding(finding: Finding): Promise<void> {
  const position = new vscode.Position(finding.line, finding.character);
  await vscode.window.showTextDocument(vscode.Uri.parse(finding.uri), {
    selection: new vscode.Range(position, position),
    preview: true,
  });
}
