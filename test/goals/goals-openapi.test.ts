import { describe, expect, it } from "vitest";
import { rawCall } from "../support/raw-call";

describe("scoped goals in the OpenAPI document", () => {
  it("lists every goal and assignment operation", async () => {
    const doc = await rawCall("GET", "/v0/openapi.json");
    expect(doc.status, JSON.stringify(doc.body).slice(0, 500)).toBe(200);
    const paths = doc.body.paths as Record<string, Record<string, unknown>>;
    const base = "/v0/learning-instances/{id}/scoped-goals";
    expect(Object.keys(paths[base] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(paths[`${base}/{goal_id}`] ?? {}).sort()).toEqual(["delete", "get", "put"]);
    expect(Object.keys(paths[`${base}/{goal_id}/registrations`] ?? {})).toEqual(["put"]);
    expect(Object.keys(paths[`${base}/{goal_id}/registrations/{registration_id}`] ?? {}).sort()).toEqual(["delete", "get", "put"]);
    expect(doc.body.components.schemas.ScopedGoal).toBeDefined();
    expect(doc.body.components.schemas.ScopedGoalRequest).toBeDefined();
  });
});
