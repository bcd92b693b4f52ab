import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config";
import { configOf } from "../support/config";

describe("CORS_ALLOWED_ORIGINS", () => {
  it("unset or empty: CORS off (no origins)", () => {
    expect(configOf({}).corsAllowedOrigins).toEqual([]);
    expect(configOf({ CORS_ALLOWED_ORIGINS: "" }).corsAllowedOrigins).toEqual([]);
    expect(configOf({ CORS_ALLOWED_ORIGINS: " , " }).corsAllowedOrigins).toEqual([]);
  });

  it("a comma-separated list, each entry normalized to the origin a browser sends", () => {
    expect(configOf({ CORS_ALLOWED_ORIGINS: "https://App.Example.com, http://localhost:5173,https://admin.example.com:443/" }).corsAllowedOrigins).toEqual([
      "https://app.example.com",
      "http://localhost:5173",
      "https://admin.example.com",
    ]);
  });

  it("anything that is not an origin fails fast, naming it: a wildcard, a path, a query, credentials, another scheme", () => {
    for (const bad of [
      "*",
      "https://a.example.com/app",
      "https://a.example.com?x=1",
      "https://u:p@a.example.com",
      "ftp://a.example.com",
      "a.example.com",
      "null",
    ]) {
      expect(() => configOf({ CORS_ALLOWED_ORIGINS: `https://ok.example.com,${bad}` }), bad).toThrow(ConfigError);
      expect(() => configOf({ CORS_ALLOWED_ORIGINS: bad }), bad).toThrow(/CORS_ALLOWED_ORIGINS/);
    }
  });
});

describe("OPERATOR_TOKEN", () => {
  it("unset: the operator diagnostics are off; set: at least 32 characters", () => {
    expect(configOf({}).operatorToken).toBeUndefined();
    expect(configOf({ OPERATOR_TOKEN: "o".repeat(32) }).operatorToken).toBe("o".repeat(32));
    expect(() => configOf({ OPERATOR_TOKEN: "short" })).toThrow(/OPERATOR_TOKEN/);
  });
});
