import { unprocessable } from "../errors";
import { MAX_ANSWER_BYTES } from "../schemas/limits";
import type { PredictedScoreRequest } from "../schemas/predicted-score";

/**
 * An upper bound of the predicted-score answer's size in bytes, from the request alone (and the
 * graph's label, which every objective score repeats): every account's object has the same members,
 * only the numbers differ, and each number has a longest JSON form. The count limits keep the answer
 * of ordinary ids well under MAX_ANSWER_BYTES; only very long ids (200 characters of 3-byte UTF-8)
 * could pass it, and are refused with 422 before any work.
 */
const utf8 = new TextEncoder();
const jsonBytes = (s: string) => utf8.encode(JSON.stringify(s)).length;

/** `{"confidence_level":100,"predicted_score":0.9999},` */
const SCORE_BYTES = 51;
/** The longest JSON of a coverage value (a double: "0.012345678901234568" or "1.2345678901234567e-7"). */
const NUMBER_BYTES = 24;
const scoreList = (levels: number) => 2 + levels * SCORE_BYTES;

export function answerBytesBound(body: PredictedScoreRequest, graphLabel: string, accounts: number): number {
  const levels = body.confidence_levels.length;
  let groups = 0;
  for (const g of body.grouped_learning_objectives) groups += 75 + jsonBytes(g.group_id) + scoreList(levels) + NUMBER_BYTES;
  let perAccount = 130 + 2 * groups; // the account id, braces and member names; group_scores and its alias
  if (body.get_learning_objective_scores) {
    const ids = new Set(body.grouped_learning_objectives.flatMap((g) => g.learning_objectives.map((o) => o.learning_objective_id)));
    const graph = jsonBytes(graphLabel);
    for (const id of ids) perAccount += 90 + jsonBytes(id) + graph + scoreList(levels) + NUMBER_BYTES;
  }
  if (body.get_overall_score) perAccount += 70 + scoreList(levels) + NUMBER_BYTES;
  return 100 + accounts * perAccount;
}

/** 422 naming the limit when the answer could exceed MAX_ANSWER_BYTES. */
export function checkAnswerSize(body: PredictedScoreRequest, graphLabel: string, accounts: number): void {
  const bound = answerBytesBound(body, graphLabel, accounts);
  if (bound <= MAX_ANSWER_BYTES) return;
  const perAccount = (bound - 100) / accounts;
  const fits = Math.max(1, Math.floor((MAX_ANSWER_BYTES - 100) / perAccount));
  throw unprocessable(
    `The answer could reach ${(bound / 1e6).toFixed(1)} MB, over the 10 MB limit: send at most ${fits} accounts per request with these groups.`,
    [{ path: "body.account_ids", message: `answer at most 10 MB: at most ${fits} accounts per request with these groups and ids` }],
  );
}
