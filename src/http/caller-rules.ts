/**
 * The caller rules of spec section 4 (and decisions.md where the spec is silent), one row per
 * endpoint. `protect(routeKey)` attaches the row to the request; `authorize` evaluates it against
 * the resource; the authorization-matrix test walks the same table.
 *
 * - admin:      the partner admin token
 * - owner:      the end user whose account owns the account/registration
 * - instructor: an end user with a live instructor registration in the resource's learning instance
 * - member:     an end user with any live registration in the resource's learning instance
 * - any:        any valid token of the partner
 */
export type Role = "admin" | "owner" | "instructor" | "member" | "any";

export const callerRules = {
  "POST /v0/accounts": ["admin"],
  "POST /v0/batch": ["admin"],
  "GET /v0/accounts/current": ["any"],
  "GET /v0/accounts/{account_id}": ["admin", "owner"],
  "DELETE /v0/accounts/{account_id}": ["admin"],

  "POST /v0/learning-instances": ["admin"],
  "GET /v0/learning-instances": ["admin"],
  "GET /v0/learning-instances/{id}": ["admin", "member"],
  "PUT /v0/learning-instances/{id}": ["admin", "instructor"],
  "DELETE /v0/learning-instances/{id}": ["admin"],
  "GET /v0/learning-instances/{li_id}/registrations": ["admin", "instructor"],

  // Learner registrations: admin or an instructor of the instance; instructor registrations: admin only
  // (the handler narrows this row by the requested type).
  "POST /v0/registrations": ["admin", "instructor"],
  "GET /v0/registrations/{reg_id}": ["admin", "owner", "instructor"],
  "DELETE /v0/registrations/{reg_id}": ["admin", "instructor"],

  // Knowledge graphs (decisions.md): writes need the admin token and the account's graph entitlement
  // (checked in the handler); graphs are course content, not personal data, so any user of the partner may read them.
  "POST /v0/graphs": ["admin"],
  "POST /v0/graphs/validate": ["admin"],
  "PUT /v0/graphs/{graph_id}": ["admin"],
  "GET /v0/graphs/{graph_id}": ["any"],
  "GET /v0/graphs": ["any"],

  // Scoped goals and their assignment (decisions.md "Scoped goals"): Admin or an instructor of the instance.
  "POST /v0/learning-instances/{id}/scoped-goals": ["admin", "instructor"],
  "GET /v0/learning-instances/{id}/scoped-goals": ["admin", "instructor"],
  "GET /v0/learning-instances/{id}/scoped-goals/{goal_id}": ["admin", "instructor"],
  "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}": ["admin", "instructor"],
  "DELETE /v0/learning-instances/{id}/scoped-goals/{goal_id}": ["admin", "instructor"],
  "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations": ["admin", "instructor"],
  "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}": ["admin", "instructor"],
  "GET /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}": ["admin", "instructor"],
  "DELETE /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}": ["admin", "instructor"],

  // Student events (spec 4.6): admin or the owner of the registration.
  "POST /v0/registrations/{id}/graded-events": ["admin", "owner"],
  "POST /v0/registrations/{id}/ungraded-events": ["admin", "owner"],
  "POST /v0/registrations/{id}/recommendation-followed-events": ["admin", "owner"],
  "POST /v0/registrations/{id}/focus-events": ["admin", "owner"],
  "POST /v0/registrations/{id}/batch-events": ["admin", "owner"],
  // xAPI statements in (decisions.md): the event endpoints' rule, on each registration the statements name.
  "POST /v0/xapi/statements": ["admin", "owner"],
  "PUT /v0/xapi/statements": ["admin", "owner"],

  // Recommendations (spec 4.5) and status and progress (spec 4.4).
  "GET /v0/registrations/{id}/recommendation": ["admin", "owner"],
  "POST /v0/learning-instances/{id}/metrics/status-and-progress": ["admin", "instructor"],
  "POST /v0/registrations/{id}/metrics/status-and-progress": ["admin", "instructor", "owner"],

  // Predicted score (spec 4.7): any user of the partner (the accounts must be the partner's).
  "POST /v0/accounts/metrics/predicted-score": ["any"],
  // Metrics rows and learners to watch (spec 4.8 names them without callers): as status and progress,
  // the instance tables for the admin or an instructor, a registration's row also for its owner.
  "POST /v0/learning-instances/{id}/metrics/proficiency/rows": ["admin", "instructor"],
  "POST /v0/learning-instances/{id}/metrics/expected-score/rows": ["admin", "instructor"],
  "POST /v0/learning-instances/{id}/metrics/readiness-forecast/rows": ["admin", "instructor"],
  "POST /v0/learning-instances/{id}/metrics/active-time/rows": ["admin", "instructor"],
  "POST /v0/registrations/{id}/metrics/proficiency/rows": ["admin", "instructor", "owner"],
  "POST /v0/registrations/{id}/metrics/expected-score/rows": ["admin", "instructor", "owner"],
  "POST /v0/registrations/{id}/metrics/readiness-forecast/rows": ["admin", "instructor", "owner"],
  "POST /v0/registrations/{id}/metrics/active-time/rows": ["admin", "instructor", "owner"],
  "POST /v0/learning-instances/{id}/metrics/groups": ["admin", "instructor"],

  // Student data lifecycle (decisions.md): the partner admin only. Erasure, export and the record of
  // data requests act on the partner's data-processing duties, not on one learner's session.
  "POST /v0/accounts/{account_id}/erasure": ["admin"],
  "POST /v0/learning-instances/{id}/erasure": ["admin"],
  "GET /v0/erasures/{erasure_id}": ["admin"],
  "GET /v0/accounts/{account_id}/export": ["admin"],
  "GET /v0/data-requests": ["admin"],
  "GET /v0/partner/settings": ["admin"],
  "PUT /v0/partner/settings": ["admin"],
} as const satisfies Record<string, readonly Role[]>;

export type RouteKey = keyof typeof callerRules;

export function routeKey(method: string, path: string): RouteKey {
  const key = `${method.toUpperCase()} ${path}`;
  if (!(key in callerRules)) throw new Error(`No caller rule for ${key}: add it to callerRules.`);
  return key as RouteKey;
}
