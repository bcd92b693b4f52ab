/**
 * The bodies of the Worker's queue messages, in one place below every layer that sends or consumes
 * them: the RegistrationObject's outbox and the services send them, the consumers in src/queues
 * read them, src/env.ts types the queue bindings with them. Types only; this file imports nothing
 * that does I/O.
 */
import type { StatisticsDelta } from "../tracing/statistics";

/** A registration's projection of its beliefs (pathwise-projections): built and parsed by the pure analytics code, which defines it. */
export type { ProjectionMessage } from "../analytics";

/** One graded answer, as the RegistrationObject reports it for online item refinement. */
export interface ItemObservation {
  module: string;
  objectives: string[];
  correct: boolean;
  /** the model's prediction before it saw the answer */
  predicted: number;
}

/** A message of the model-updates queue (pathwise-model-updates, src/queues/model-updates.ts). */
export interface ModelUpdateMessage {
  /** `<registration id>:<outbox row id>`: the same message sent twice is applied once */
  id: string;
  graphUuid: string;
  observations: ItemObservation[];
  /** the registration's change to the graph's population statistics (src/tracing/statistics.ts), when it sends one */
  population?: StatisticsDelta;
}

/**
 * A model-update message as it travels: the outbox sends its JSON as text (it keeps the messages as
 * JSON, so this spares parsing them again and the queue's serialization of the object; the consumer
 * parses the text once, docs/performance.md, eighth pass). Other producers (a dead letter's replay,
 * tests) send the object: the consumer takes both.
 */
export type ModelUpdateBody = ModelUpdateMessage | string;

/** A message of the erasure queue: advance this erasure (src/queues/erasures.ts). */
export interface ErasureMessage {
  erasure_id: string;
}
