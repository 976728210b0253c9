/** The interpreter selected in the Python extension (ms-python.python), when that extension is there. */

import { PythonExtension } from "@vscode/python-extension";
import * as vscode from "vscode";

const PYTHON_EXTENSION_ID = "ms-python.python";

async function pythonApi(): Promise<PythonExtension | undefined> {
  if (vscode.extensions.getExtension(PYTHON_EXTENSION_ID) === undefined) {
    return undefined;
  }
  try {
    return await PythonExtension.api();
  } catch {
    return undefined;
  }
}

/** The selected interpreter's executable for `resource`, or undefined (no extension, no selection). */
export async function selectedInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const api = await pythonApi();
  if (api === undefined) {
    return undefined;
  }
  const active = api.environments.getActiveEnvironmentPath(resource);
  const resolved = await api.environments.resolveEnvironment(active);
  return resolved?.executable.uri?.fsPath;
}

/** Calls `listener` when the user selects another interpreter in the Python extension. */
export async function onInterpreterChanged(listener: () => void): Promise<vscode.Disposable> {
  const api = await pythonApi();
  return api?.environments.onDidChangeActiveEnvironmentPath(() => listener()) ?? new vscode.Disposable(() => {});
}
