import { describe, expect, it } from "vitest";
import { choice, decimal, integer, onOff, url } from "../../../src/config/knob.ts";

const about = { group: "General", description: "test" } as const;

describe("knobs", () => {
  it("a whole number is in its bounds, written as digits", () => {
    const knob = integer(about, { min: 2, max: 1_000, fallback: 40 });
    expect(knob.read("2")).toEqual({ ok: true, value: 2, problems: [] });
    expect(knob.read("1000")).toMatchObject({ value: 1000 });
    for (const bad of ["1", "1001", "4.5", "abc", "0x10"]) {
      expect(knob.read(bad)).toEqual({ ok: false, problem: "must be a whole number from 2 to 1000" });
    }
    expect(knob.shownDefault).toBe("40");
    expect(knob.input).toEqual({ type: "number", min: 2, max: 1000, step: "1" });
  });

  it("a number may have decimals, never below 0", () => {
    const knob = decimal(about, { max: 100, fallback: 0.04 });
    expect(knob.read("0.005")).toMatchObject({ value: 0.005 });
    expect(knob.read(".5")).toMatchObject({ value: 0.5 });
    expect(knob.read("-1")).toEqual({ ok: false, problem: "must be a number from 0 to 100" });
    expect(knob.read("101")).toMatchObject({ ok: false });
  });

  it("a choice is read case-insensitively; on/off takes the usual words", () => {
    const knob = choice(about, ["auto", "always", "off"], "auto");
    expect(knob.read("ALWAYS")).toMatchObject({ value: "always" });
    expect(knob.read("sometimes")).toEqual({ ok: false, problem: "must be one of auto, always, off" });
    const toggle = onOff(about, true);
    expect(["on", "TRUE", "1"].map((word) => toggle.read(word))).toEqual(
      Array(3).fill({ ok: true, value: true, problems: [] }),
    );
    expect(toggle.read("0")).toMatchObject({ value: false });
    expect(toggle.read("maybe")).toEqual({ ok: false, problem: "must be on or off" });
  });

  it("a URL is http(s), without its trailing slashes", () => {
    const knob = url(about);
    expect(knob.read("https://example.org/v1//")).toMatchObject({ value: "https://example.org/v1" });
    expect(knob.read("ftp://example.org")).toEqual({ ok: false, problem: "must be an http(s) URL" });
    expect(knob.read("not a url")).toMatchObject({ ok: false });
  });
});
