import { checkParams } from "./check-params";
import { fnv1a } from "./math";
import type { ModelParams } from "./params";
import serviceParams from "./service-params.json";

/**
 * Population-level model parameters the service runs with: calibrated offline by
 * `npm run calibrate -- --service` (feature weights, filter and graph constants; partner items start from the
 * objective/global difficulty and are refined online).
 */
export const SERVICE_PARAMS = checkParams(serviceParams as unknown as ModelParams);

/**
 * Identifies the parameters a learner state was computed with (FNV-1a of their JSON). A state kept
 * under other parameters (a recalibration was deployed) is rebuilt from the event log.
 */
export const SERVICE_PARAMS_ID = fnv1a(JSON.stringify(SERVICE_PARAMS));
