import { z } from "@hono/zod-openapi";
import { REGISTRATION_TYPES } from "../domain/vocabulary";
import { uuid } from "./common";

export const RegistrationType = z.enum(REGISTRATION_TYPES);

export const RegistrationSchema = z
  .object({
    id: z.string().uuid(),
    account_id: z.string().uuid(),
    learning_instance_id: z.string().uuid(),
    type: RegistrationType,
  })
  .openapi("Registration");

export const CreateRegistrationBody = z.object({ account_id: uuid, learning_instance_id: uuid, type: RegistrationType }).openapi("CreateRegistration");

export type RegistrationView = z.infer<typeof RegistrationSchema>;
