import { z } from "zod";
import { jsonObject } from "./common-schemas.ts";

export const toolSchema = z
  .object({
    name: z.string(),
    family: z.string().meta({ description: "`files`, `process`, `web`... (admins can switch families off)" }),
    description: z.string(),
    parameters: jsonObject().meta({ description: "the JSON Schema of the arguments, as the model receives it" }),
    effects: z.array(z.string()),
  })
  .meta({ id: "Tool" });

export const toolListSchema = z.object({ tools: z.array(toolSchema) }).meta({ id: "ToolList" });
