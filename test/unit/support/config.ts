import { configFrom } from "../../../src/config";
import type { Env } from "../../../src/env";

const KEY = "test-signing-key-0123456789abcdef0123456789abcdef";

/** The configuration the Worker would derive from these variables (a valid signing key unless one is given). */
export const configOf = (vars: Record<string, string | undefined>) => configFrom({ TOKEN_SIGNING_KEY: KEY, ...vars } as unknown as Env);
