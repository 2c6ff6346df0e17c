import { describe, expect, it } from "vitest";
import {
  InvalidDurationError,
  InvalidInputError,
  NonDeterminismError,
  PayloadTooLargeError,
  RunNotFoundError,
  SluiceError,
  TerminalError,
} from "../sdk/errors.js";
import { isTerminalError, markTerminal } from "./control.js";

describe("isTerminalError decides by class, not by code", () => {
  it("treats bad input, TerminalError and non-determinism as terminal", () => {
    expect(isTerminalError(new InvalidInputError("bad"))).toBe(true);
    expect(isTerminalError(new InvalidDurationError("soon"))).toBe(true);
    expect(isTerminalError(new PayloadTooLargeError("payload", 10, 5))).toBe(true);
    expect(isTerminalError(new TerminalError("stop"))).toBe(true);
    expect(isTerminalError(new NonDeterminismError("k", 0, "a step", "a sleep"))).toBe(true);
  });

  it("retries other Sluice errors and user errors whatever their code says", () => {
    expect(isTerminalError(new RunNotFoundError("r1"))).toBe(false);
    expect(isTerminalError(new SluiceError("INVALID_ARGUMENT", "user's own error"))).toBe(false);
    expect(isTerminalError(Object.assign(new Error("user's own error"), { code: "INVALID_ARGUMENT" }))).toBe(false);
    expect(isTerminalError(Object.assign(new Error("lookalike"), { code: "TERMINAL" }))).toBe(false);
    expect(isTerminalError("a string")).toBe(false);
    expect(isTerminalError(null)).toBe(false);
  });

  it("honours markTerminal on any object, and leaves frozen errors retryable", () => {
    expect(isTerminalError(markTerminal(new Error("final")))).toBe(true);
    expect(isTerminalError(markTerminal(Object.freeze(new Error("frozen"))))).toBe(false);
  });

  it("does not serialise the terminal flag as an error field", () => {
    expect(Object.keys(new InvalidInputError("bad"))).not.toContain("terminal");
  });
});
