import type { Context } from "hono";
import { forbidden, notFound } from "../errors";
import type { AppEnv } from "../http/app-env";
import { callerRules, type Role } from "../http/caller-rules";
import { requireInstanceWithGraph } from "../services/learning-instances";
import { hasLiveRegistration, type RegistrationContext, registrationContext } from "../services/registrations";

/** What a caller rule is evaluated against: the resource named by the request. */
export interface Subject {
  /** what to call it in a 404 message */
  kind: string;
  partnerId: string;
  /** account that owns the resource (the account itself, or the registration's account) */
  ownerAccountId?: string;
  /** learning instance the resource belongs to */
  learningInstanceId?: string;
}

/** An account: its owner is itself. */
export const accountSubject = (a: { id: string; partnerId: string }): Subject => ({ kind: "Account", partnerId: a.partnerId, ownerAccountId: a.id });

/** A learning instance: its members are the accounts registered in it. */
export const instanceSubject = (li: { id: string; partnerId: string }): Subject => ({
  kind: "Learning instance",
  partnerId: li.partnerId,
  learningInstanceId: li.id,
});

/** A registration: owned by its account, in its learning instance. */
export const registrationSubject = (r: { partnerId: string; accountId: string; learningInstanceId: string }): Subject => ({
  kind: "Registration",
  partnerId: r.partnerId,
  ownerAccountId: r.accountId,
  learningInstanceId: r.learningInstanceId,
});

/**
 * Applies the route's caller rule. A resource of another partner is reported as missing (404),
 * never as forbidden. `roles` narrows the row where the spec does so by request content.
 */
export async function authorize(c: Context<AppEnv>, subject?: Subject, roles?: readonly Role[]): Promise<void> {
  const caller = c.get("caller");
  if (subject && subject.partnerId !== caller.partnerId) throw notFound(subject.kind);
  const allowed = roles ?? callerRules[c.get("routeKey")];
  if (await passes(c, allowed, subject)) return;
  throw forbidden();
}

/** Registration `id` with its graph, once the caller rule allows the caller on it (admin or owner, per route). */
export async function authorizedRegistration(c: Context<AppEnv>, id: string): Promise<RegistrationContext> {
  const context = await registrationContext(c.get("db"), id);
  await authorize(c, registrationSubject(context.registration));
  return context;
}

/** Learning instance `id` with its graph, once the caller rule allows the caller on it. */
export async function authorizedInstance(c: Context<AppEnv>, id: string): ReturnType<typeof requireInstanceWithGraph> {
  const found = await requireInstanceWithGraph(c.get("db"), id);
  await authorize(c, instanceSubject(found.li));
  return found;
}

async function passes(c: Context<AppEnv>, roles: readonly Role[], subject?: Subject): Promise<boolean> {
  const caller = c.get("caller");
  for (const role of roles) {
    switch (role) {
      case "any":
        return true;
      case "admin":
        if (caller.isAdmin) return true;
        break;
      case "owner":
        if (subject?.ownerAccountId === caller.accountId) return true;
        break;
      case "instructor":
      case "member":
        if (
          subject?.learningInstanceId &&
          (await hasLiveRegistration(c.get("db"), caller.accountId, subject.learningInstanceId, role === "instructor" ? "instructor" : undefined))
        ) {
          return true;
        }
        break;
    }
  }
  return false;
}
