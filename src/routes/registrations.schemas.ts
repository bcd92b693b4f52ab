import { z } from "@hono/zod-openapi";

export const RegistrationType = z.enum(["learner", "instructor"]);

export const RegistrationSchema = z
  .object({
    id: z.string().uuid(),
    account_id: z.string().uuid(),
    learning_instance_id: z.string().uuid(),
    type: RegistrationType,
  })
  .openapi("Registration");
