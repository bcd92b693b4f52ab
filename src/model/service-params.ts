import { checkParams } from "./check-params";
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

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}
