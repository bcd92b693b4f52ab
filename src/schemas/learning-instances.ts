import { z } from "@hono/zod-openapi";
import { isoDateTime } from "./common";
import { freeText, identifierMatching } from "./text";

const GraphId = identifierMatching(
  (char) => `^(gref-${char()}+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$`,
  "must be a graph uuid or a gref- label (without the characters identifiers refuse: control, formatting, separators, variation selectors)",
)
  .min(1)
  .max(200)
  .openapi({ example: "gref-pre-algebra" });
const Name = freeText.trim().min(1).max(200).openapi({ description: "No personal data: a name with an e-mail address is refused (422)." });

export const LearningInstanceSchema = z
  .object({
    id: z.string().uuid(),
    graph_id: z.string(),
    name: z.string(),
    start_date: z.string().optional(),
    end_date: z.string().optional(),
    in_progress: z.literal(true).openapi({ description: "Deprecated; always true." }),
  })
  .openapi("LearningInstance");

export const CreateLearningInstanceBody = z
  .object({ graph_id: GraphId, name: Name, start_date: isoDateTime.optional(), end_date: isoDateTime.optional() })
  .openapi("CreateLearningInstance");

export const UpdateLearningInstanceBody = z
  .object({
    name: Name.optional(),
    start_date: isoDateTime.nullable().optional(),
    end_date: isoDateTime.nullable().optional(),
    graph_id: GraphId.optional().openapi({
      description: "Immutable: naming the instance's own graph (by uuid or gref- label) is a no-op; another graph is refused (422).",
    }),
  })
  .openapi("UpdateLearningInstance");

export type LearningInstanceView = z.infer<typeof LearningInstanceSchema>;
export type CreateLearningInstanceInput = z.infer<typeof CreateLearningInstanceBody>;
