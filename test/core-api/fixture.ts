import { expect } from "vitest";
import type { Role } from "../../src/http/caller-rules";
import { createAccount, createInstance, type Json, newPartner, type Partner, register } from "../support/api";
import type { ApiResponse } from "../support/raw-call";

/** An end user of partner A with a token acting as that user (spec 5.8). */
export interface Member {
  account: Json;
  token: string;
}

/**
 * One learning instance with its people: the owner (learner), an instructor and another learner.
 * The members' accounts are shared between worlds of the same fixture (an account may join many
 * instances); a world may bring its own owner when the test needs an owner it may destroy.
 */
export interface World {
  partner: Partner;
  li: Json;
  ownerAccount: Json;
  /** only set for worlds of partner A */
  ownerToken?: string;
  ownerReg: Json;
  instructorReg: Json;
  otherReg: Json;
}

export interface Fixture {
  a: Partner;
  b: Partner;
  owner: Member;
  instructor: Member;
  other: Member;
  /** partner A's default world */
  world: World;
  /** partner B's world (accounts without tokens) */
  bWorld: World;
}

export async function newMember(p: Partner): Promise<Member> {
  const account = await createAccount(p);
  return { account, token: await p.tokenFor(account.external_user_id) };
}

export async function newWorld(p: Partner, people: { owner: Json; ownerToken?: string; instructor: Json; other: Json }): Promise<World> {
  const li = await createInstance(p);
  const [ownerReg, instructorReg, otherReg] = await Promise.all([
    register(p, people.owner.id, li.id, "learner"),
    register(p, people.instructor.id, li.id, "instructor"),
    register(p, people.other.id, li.id, "learner"),
  ]);
  return { partner: p, li, ownerAccount: people.owner, ownerToken: people.ownerToken, ownerReg, instructorReg, otherReg };
}

/** Partner A with admin token, an owner (learner), an instructor and another learner of one instance; partner B with its own world. */
export async function newFixture(): Promise<Fixture> {
  const [a, b] = await Promise.all([newPartner("Partner A"), newPartner("Partner B")]);
  const [owner, instructor, other] = await Promise.all([newMember(a), newMember(a), newMember(a)]);
  const world = await newWorld(a, { owner: owner.account, ownerToken: owner.token, instructor: instructor.account, other: other.account });
  const [bOwner, bInstructor, bOther] = await Promise.all([createAccount(b), createAccount(b), createAccount(b)]);
  const bWorld = await newWorld(b, { owner: bOwner, instructor: bInstructor, other: bOther });
  return { a, b, owner, instructor, other, world, bWorld };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The decided error body: code, message, error_id (and details for validation failures). */
export function expectErrorBody(res: ApiResponse, status: number): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get("content-type") ?? "").toMatch(/application\/json/);
  expect(res.body).toMatchObject({ code: status, message: expect.any(String), error_id: expect.stringMatching(UUID) });
  expect(Object.keys(res.body).sort()).toEqual(expect.arrayContaining(["code", "error_id", "message"]));
  for (const key of Object.keys(res.body)) expect(["code", "message", "error_id", "details"]).toContain(key);
  expect(JSON.stringify(res.body)).not.toMatch(/\bat .*\.(ts|js):\d+/); // no stack traces
}

/** A 400 validation failure naming `path` in its details. */
export function expectValidation(res: ApiResponse, path: string): void {
  expectErrorBody(res, 400);
  expect(Array.isArray(res.body.details), JSON.stringify(res.body)).toBe(true);
  const paths = (res.body.details as { path: string; message: string }[]).map((d) => d.path);
  expect(paths, JSON.stringify(res.body)).toContain(path);
  for (const d of res.body.details) expect(typeof d.message).toBe("string");
}

/** The roster endpoints: accounts, batch, learning instances (incl. list and their registrations), registrations. */
export const ROSTER_ROUTE =
  /^(GET|POST|PUT|PATCH|DELETE) \/v0\/(accounts(\/current|\/\{[^}/]+\})?|batch|learning-instances(\/\{[^}/]+\}(\/registrations)?)?|registrations(\/\{[^}/]+\})?)$/;

/** The five callers of the authorization matrices. */
export type CallerName = "admin" | "owner" | "instructor" | "otherLearner" | "otherPartnerAdmin";

/** What a caller rule is evaluated against: the resource of partner A named by the request (null: none). */
export type SubjectKind = "account" | "graph" | "instance" | "registration" | null;

/** The facts about a caller of partner A relative to the subject, in the vocabulary of `Role`. */
export function factsOf(caller: CallerName, subject: SubjectKind): Set<Role> {
  const facts = new Set<Role>();
  if (caller === "admin" || caller === "otherPartnerAdmin") facts.add("admin");
  if (subject === "account" && caller === "owner") facts.add("owner");
  if (subject === "instance" || subject === "registration") {
    if (caller === "owner" || caller === "instructor" || caller === "otherLearner") facts.add("member");
    if (caller === "instructor") facts.add("instructor");
    // only a registration has an owner among these: the account it belongs to
    if (subject === "registration" && caller === "owner") facts.add("owner");
  }
  return facts;
}

/** Whether a rule row lets a caller with these facts through. */
export const allows = (roles: readonly Role[], facts: Set<Role>) => roles.includes("any") || roles.some((r) => facts.has(r));

/**
 * The outcome every authorization-matrix cell asserts: the expected status; on success a 204 has no
 * body and the route's effect is checked; on refusal the decided error body and nothing changed.
 */
export async function expectCellOutcome(
  res: ApiResponse,
  expected: number,
  label: string,
  onSuccess?: () => Promise<void> | void,
  unchanged?: () => Promise<void> | void,
): Promise<void> {
  expect(res.status, label).toBe(expected);
  if (expected < 300) {
    if (expected === 204) expect(res.body, label).toBeNull();
    await onSuccess?.();
  } else {
    expectErrorBody(res, expected);
    await unchanged?.();
  }
}
