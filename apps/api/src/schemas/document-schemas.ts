import { z } from "zod";

const documentFields = {
  id: z.string(),
  title: z.string(),
  format: z.enum(["markdown", "text"]),
  revision: z.number().int().meta({ description: "1 at creation, +1 per change" }),
  created_at: z.string(),
  updated_at: z.string().meta({ description: "when this revision was written" }),
};

export const documentSummarySchema = z.object(documentFields).meta({ id: "DocumentSummary" });

export const documentSchema = z.object({ ...documentFields, content: z.string() }).meta({ id: "Document" });

export const documentListSchema = z.object({ documents: z.array(documentSummarySchema) }).meta({ id: "DocumentList" });

export const documentRevisionListSchema = z
  .object({
    revisions: z.array(
      z.object({
        revision: z.number().int(),
        created_at: z.string(),
        author: z.enum(["user", "agent"]),
        run_id: z.string().nullable().meta({ description: "the run that wrote it (author `agent`)" }),
      }),
    ),
  })
  .meta({ id: "DocumentRevisionList" });
