/** What the end-to-end test runs with, from the environment that editor-client/scripts/test.sh sets
 * up (toolchain.sh installs the programs). */

import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

export interface E2eEnvironment {
  codeServer: string;
  chromium: string;
  nodeHome: string;
  python: string;
  /** The prscope checkout these tests run from ("Install prscope" installs it from here). */
  projectRoot: string;
  vsix: string;
  /** Screenshots and logs of this run. */
  outputDir: string;
  /** Scratch: repositories, profiles, code-server's data. */
  scratchDir: string;
}

const MODEL_VARIABLES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
];

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") {
    throw new Error(`${name} is not set: run the end-to-end test through editor-client/scripts/test.sh`);
  }
  return value;
}

export function e2eEnvironment(): E2eEnvironment {
  const outputDir = resolve(process.env.PRSCOPE_E2E_OUTPUT ?? join(__dirname, "..", "..", "test-output", "e2e"));
  const scratchDir = resolve(required("PRSCOPE_E2E_SCRATCH"));
  mkdirSync(outputDir, { recursive: true });
  mkdirSync(scratchDir, { recursive: true });
  return {
    codeServer: required("CODE_SERVER"),
    chromium: required("CHROMIUM"),
    nodeHome: required("NODE24_HOME"),
    python: required("PRSCOPE_PYTHON"),
    projectRoot: resolve(__dirname, "..", "..", ".."),
    vsix: required("PRSCOPE_VSIX"),
    outputDir,
    scratchDir,
  };
}

/** This process's environment without any model configuration: a scenario adds exactly what it means to. */
export function cleanEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !MODEL_VARIABLES.includes(name)) {
      env[name] = value;
    }
  }
  return env;
}
