/** Validation of loaded parameters against this model code. */
import { FEATURE_NAMES } from "./features";
import { assertCompatibleParams, type ModelParams } from "./params";

/** Throws if `params` (e.g. loaded from storage) does not match this model version's feature layout. */
export function checkParams(params: ModelParams): ModelParams {
  assertCompatibleParams(params, FEATURE_NAMES);
  return params;
}
