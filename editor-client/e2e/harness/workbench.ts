/** The workbench in headless Debian Chromium, driven with playwright-core: commands from the palette,
 * and what the rendered UI shows, read from its accessible labels. Every check waits for a state
 * (generously: the machine may be loaded) and never sleeps for a fixed time. */

import { join } from "node:path";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import type { E2eEnvironment } from "./environment";

/** Chromium as this machine allows it: no sandbox (root), no GPU, no network beyond loopback. */
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

export const UI_TIMEOUT_MS = 90_000;

export interface Row {
  label: string;
  level: number;
}

export class Workbench {
  private constructor(
    private readonly browser: Browser,
    readonly page: Page,
    private readonly screenshotDir: string,
    private readonly scenario: string,
  ) {}

  /** Playwright gives the browser a fresh temporary profile of its own. */
  static async open(env: E2eEnvironment, url: string, folder: string, scenario: string): Promise<Workbench> {
    const browser = await chromium.launch({ executablePath: env.chromium, headless: true, args: CHROMIUM_FLAGS });
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    await page.goto(`${url}/?folder=${encodeURIComponent(folder)}`);
    await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    return new Workbench(browser, page, env.outputDir, scenario);
  }

  /** Runs a command by its title from the command palette. The palette lists the commands known when
   * it opens: while the extension is still being registered, it is opened again until the title shows. */
  async command(title: string): Promise<void> {
    const input = this.page.locator(".quick-input-widget input");
    const row = this.page
      .locator(".quick-input-widget .monaco-list-row")
      // The whole label: "Review Pull Request" must not pick "Review Pull Request (No Cache)".
      .filter({ has: this.page.locator(".label-name", { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`) }) })
      .first();
    const deadline = Date.now() + UI_TIMEOUT_MS;
    for (;;) {
      if (await input.isVisible()) {
        // Only then: in an editor, Escape would drop the selection a command may act on.
        await this.page.keyboard.press("Escape");
      }
      await this.page.keyboard.press("F1");
      await input.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
      await input.fill(`>${title}`);
      try {
        await row.waitFor({ state: "visible", timeout: 5000 });
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          throw error;
        }
      }
    }
    await row.click();
  }

  /** Types into the input box an extension opened (showInputBox), then confirms it. */
  async answerInputBox(text: string): Promise<void> {
    const input = this.page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    await input.fill(text);
    await input.press("Enter");
  }

  /** The list rows under `container` (a CSS selector), with their tree levels, in display order. */
  async rows(container: string): Promise<Row[]> {
    return this.page.locator(`${container} .monaco-list-row`).evaluateAll((elements) =>
      elements.map((element) => ({
        label: element.getAttribute("aria-label") ?? element.textContent ?? "",
        level: Number(element.getAttribute("aria-level") ?? "0"),
      })),
    );
  }

  /** Waits until `check` holds for the rows under `container`; returns them. Fails with what was there. */
  async waitForRows(container: string, what: string, check: (rows: Row[]) => boolean, timeoutMs = UI_TIMEOUT_MS): Promise<Row[]> {
    const deadline = Date.now() + timeoutMs;
    let rows: Row[] = [];
    let shown = "";
    while (Date.now() < deadline) {
      rows = await this.rows(container);
      if (check(rows)) {
        return rows;
      }
      const now = rows.map((row) => `  [${row.level}] ${row.label}`).join("\n");
      if (process.env.PRSCOPE_E2E_DEBUG && now !== shown) {
        console.log(`waiting for ${what}:\n${now}`);
        shown = now;
      }
      await this.page.waitForTimeout(250);
    }
    await this.screenshot(`timeout-${what.replace(/[^a-z0-9]+/gi, "-")}`);
    throw new Error(`timed out waiting for ${what}; rows were:\n${rows.map((r) => `  [${r.level}] ${r.label}`).join("\n")}`);
  }

  /** The notification toast whose text contains `text`. */
  toast(text: string): Locator {
    return this.page.locator(".notifications-toasts .notification-toast").filter({ hasText: text });
  }

  /** Waits for the toast and for its fade-in to end (so that a screenshot shows it whole). */
  async waitForToast(text: string, timeoutMs = UI_TIMEOUT_MS): Promise<Locator> {
    const toast = this.toast(text).first();
    await toast.waitFor({ state: "visible", timeout: timeoutMs });
    await settled(toast);
    return toast;
  }

  /** Waits for a notification, as a toast or in the notification center (where notifications go
   * instead of toasts while the center is open). */
  async waitForNotification(text: string, timeoutMs = UI_TIMEOUT_MS): Promise<Locator> {
    const notification = this.page.locator(".notification-list-item").filter({ hasText: text }).filter({ visible: true }).first();
    await notification.waitFor({ state: "visible", timeout: timeoutMs });
    await settled(notification);
    return notification;
  }

  /** The notification whose text contains `text`, on its toast when it shows, else in the notification
   * center, opened for it (VS Code hides a toast after a while and keeps the notification there; a
   * progress notification then shows in the status bar). */
  async revealNotification(text: string): Promise<Locator> {
    if (!(await this.toast(text).first().isVisible())) {
      await this.command("Notifications: Show Notifications");
    }
    return this.waitForNotification(text);
  }

  /** Makes the side bar wider, so that the views' descriptions show in screenshots. */
  async widenSideBar(steps: number): Promise<void> {
    for (let step = 0; step < steps; step += 1) {
      await this.command("Increase Current View Size");
    }
  }

  /** Saves the page as test-output/e2e/<scenario>-<name>.png and returns the path. */
  async screenshot(name: string): Promise<string> {
    const path = join(this.screenshotDir, `${this.scenario}-${name}.png`);
    // Not an assertion: only lets a closing command palette fade out of the picture.
    await this.page
      .locator(".quick-input-widget")
      .waitFor({ state: "hidden", timeout: 5000 })
      .catch(() => undefined);
    await this.page.screenshot({ path });
    return path;
  }

  async close(): Promise<void> {
    await this.browser.close();
  }
}

/** Waits for the finite animations of the element's notification area to end (the fade-in runs on a
 * container around it; a progress bar spins for ever); a transition that another replaces is cancelled
 * (its promise rejects): that is an end too. */
async function settled(locator: Locator): Promise<void> {
  await locator.evaluate((element) =>
    Promise.all(
      (element.closest(".notifications-toasts, .notifications-center") ?? element)
        .getAnimations({ subtree: true })
        .filter((animation) => animation.effect?.getComputedTiming().endTime !== Infinity)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
