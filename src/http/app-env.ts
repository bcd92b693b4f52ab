import type { Config } from "../config";
import type { Db } from "../db/client";
import type { Env } from "../env";
import type { RouteKey } from "./caller-rules";

/** Who is calling: resolved from the access token by `protect`. */
export interface Caller {
  partnerId: string;
  accountId: string;
  /** the token was issued for the partner admin scope */
  isAdmin: boolean;
  tokenId: string;
  /** token expiry, seconds since the epoch */
  expiresAt: number;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    config: Config;
    db: Db;
    caller: Caller;
    routeKey: RouteKey;
    requestId: string;
  };
}
