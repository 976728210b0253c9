/** The model API key, kept in the editor's SecretStorage (one per provider) and handed to the server
 * through its process environment only (settings.ts serverEnvironment). */

import * as vscode from "vscode";
import { apiKeyVariable, type Provider } from "./settings";

export function secretName(provider: Provider | undefined): string {
  return `prscope.apiKey.${provider ?? "anthropic"}`;
}

export function readApiKey(secrets: vscode.SecretStorage, provider: Provider | undefined): Thenable<string | undefined> {
  return secrets.get(secretName(provider));
}

/** Asks for the key; an empty answer removes the stored one. True when the stored key changed. */
export async function promptForApiKey(secrets: vscode.SecretStorage, provider: Provider | undefined): Promise<boolean> {
  const name = provider ?? "anthropic";
  const entered = await vscode.window.showInputBox({
    title: `prscope: API key for ${name}`,
    prompt: `Kept in the editor's secret storage and given to the prscope server as ${apiKeyVariable(provider)}. Leave empty to remove the stored key.`,
    password: true,
    ignoreFocusOut: true,
    placeHolder: name === "anthropic" ? "sk-ant-..." : "API key",
  });
  if (entered === undefined) {
    return false;
  }
  const key = entered.trim();
  if (key === "") {
    await secrets.delete(secretName(provider));
    void vscode.window.showInformationMessage(`prscope: the stored ${name} API key was removed.`);
  } else {
    await secrets.store(secretName(provider), key);
    void vscode.window.showInformationMessage(`prscope: ${name} API key stored; the server restarts with it.`);
  }
  return true;
}

export function isApiKeySecret(key: string): boolean {
  return key.startsWith("prscope.apiKey.");
}
