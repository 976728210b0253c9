/** A status-bar item while a review or analysis runs; a click shows the Agents view. */

import * as vscode from "vscode";
import { Views } from "./constants";

export class ReviewStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("prscope.review", vscode.StatusBarAlignment.Left, 10);
  private readonly running = new Map<number, string>();
  private counter = 0;

  constructor() {
    this.item.name = "prscope review";
    this.item.command = `${Views.agents}.focus`;
  }

  /** Shows `title` until the returned function is called. */
  begin(title: string): { report: (message: string) => void; end: () => void } {
    const id = ++this.counter;
    this.running.set(id, title);
    this.render();
    return {
      report: (message) => {
        if (this.running.has(id)) {
          this.running.set(id, `${title}: ${message}`);
          this.render();
        }
      },
      end: () => {
        this.running.delete(id);
        this.render();
      },
    };
  }

  dispose(): void {
    this.item.dispose();
  }

  private render(): void {
    const latest = [...this.running.values()].pop();
    if (latest === undefined) {
      this.item.hide();
      return;
    }
    this.item.text = `$(sync~spin) prscope`;
    this.item.tooltip = [...this.running.values()].join("\n");
    this.item.show();
  }
}
