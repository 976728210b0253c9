import { expect, test } from "vitest";
import { AGENT_STATES } from "../src/runTree";
import { shortCount, STATE_LOOKS, tokenUse, toolCallCount } from "../src/runFormat";

test("token counts read like 12k / 200k", () => {
  expect(tokenUse(12_345, 200_000)).toBe("12.3k / 200k");
  expect(tokenUse(950, null)).toBe("950");
  expect(tokenUse(0, null)).toBe("");
  expect(tokenUse(0, 1_000_000)).toBe("0 / 1M");
  expect(shortCount(1_550_000)).toBe("1.6M");
  expect(shortCount(123_456)).toBe("123k");
});

test("tool call counts", () => {
  expect(toolCallCount(1)).toBe("1 tool call");
  expect(toolCallCount(0)).toBe("0 tool calls");
});

test("every state has its own icon-and-colour pair and words", () => {
  const looks = AGENT_STATES.map((state) => STATE_LOOKS[state]);
  expect(new Set(looks.map((look) => `${look.icon}/${look.color}`)).size).toBe(AGENT_STATES.length);
  expect(new Set(looks.map((look) => look.words)).size).toBe(AGENT_STATES.length);
});
