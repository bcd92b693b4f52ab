/**
 * The dashboard's sign-in: the partner's application opens /dashboard#token=<access token>. The
 * fragment never leaves the browser (it is not part of any request); the page takes the token out of
 * the address bar at once (history.replaceState) and keeps it in sessionStorage (this tab only, gone
 * when the tab closes) or, where storage is refused, in memory. It is sent only in the Authorization
 * header of the API requests: never in a URL, a cookie or a log.
 */
const KEY = "pathwise.dashboard.token";
let memory: string | undefined;

export interface PageParams {
  token: string | undefined;
  instanceId: string | undefined;
  goalId: string | undefined;
}

export function readParams(loc: Location = location, hist: History = history): PageParams {
  const fragment = new URLSearchParams(loc.hash.slice(1));
  const query = new URLSearchParams(loc.search);
  const given = fragment.get("token") ?? undefined;
  if (given) {
    remember(given);
    fragment.delete("token");
    const rest = fragment.toString();
    hist.replaceState(null, "", `${loc.pathname}${loc.search}${rest ? `#${rest}` : ""}`);
  }
  return {
    token: given ?? recall(),
    instanceId: query.get("instance") ?? fragment.get("instance") ?? undefined,
    goalId: query.get("goal") ?? fragment.get("goal") ?? undefined,
  };
}

/** Puts the chosen goal in the address (no reload, nothing secret: ids only). */
export function showGoalInAddress(goalId: string, loc: Location = location, hist: History = history): void {
  const query = new URLSearchParams(loc.search);
  query.set("goal", goalId);
  hist.replaceState(null, "", `${loc.pathname}?${query}${loc.hash}`);
}

function remember(token: string): void {
  memory = token;
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    /* storage refused: memory only */
  }
}

function recall(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? memory;
  } catch {
    return memory;
  }
}

/** Signs out of this tab: the token is forgotten. */
export function forget(): void {
  memory = undefined;
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    /* nothing stored */
  }
}
