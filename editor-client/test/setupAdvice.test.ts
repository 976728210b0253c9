import { describe, expect, test } from "vitest";
import { HERE_ACTION, PRIVATE_ACTION, setupActions, setupMessage } from "../src/setupAdvice";

const INFO = { python: "3.11.2", pythonOk: true, virtualEnv: false, externallyManaged: true, prscope: null, importable: false };

describe("the one message for an interpreter that cannot run the server", () => {
  test("an externally managed interpreter: the private environment, never pip into it", () => {
    const probe = { ok: true as const, info: INFO };
    const verdict = { kind: "missing" as const, reason: "prscope is not installed in this interpreter" };
    expect(setupActions(probe, verdict)).toEqual([PRIVATE_ACTION, "Open Settings"]);
    expect(setupMessage("/usr/bin/python3", probe, verdict)).toBe(
      "prscope cannot start with /usr/bin/python3: prscope is not installed in this interpreter. It is externally managed, so pip does not install into it. Install prscope in a private environment of the extension's (made with this Python)?",
    );
  });

  test("a virtual environment may also get prscope itself", () => {
    const probe = { ok: true as const, info: { ...INFO, virtualEnv: true, externallyManaged: false } };
    const verdict = { kind: "missing" as const, reason: "prscope is not installed in this interpreter" };
    expect(setupActions(probe, verdict)).toEqual([PRIVATE_ACTION, HERE_ACTION, "Open Settings"]);
  });

  test("a Python that cannot run prscope: only another interpreter helps", () => {
    const probe = { ok: true as const, info: { ...INFO, python: "3.9.2", pythonOk: false } };
    const verdict = { kind: "unusable" as const, reason: "prscope needs Python 3.11 or newer; this is Python 3.9.2" };
    expect(setupActions(probe, verdict)).toEqual(["Open Settings"]);
    expect(setupMessage("/usr/bin/python3.9", probe, verdict)).toMatch(/Choose another interpreter in the prscope settings\.$/);
  });
});
