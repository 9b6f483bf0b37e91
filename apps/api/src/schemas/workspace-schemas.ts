import { z } from "zod";

export const workspaceSchema = z.object({ id: z.string(), name: z.string() }).meta({ id: "Workspace" });

export const workspaceListSchema = z.object({ workspaces: z.array(workspaceSchema) }).meta({ id: "WorkspaceList" });

const revision = () => z.string().meta({ description: "opaque; changes whenever the content changes" });

export const workspaceFileSchema = z
  .object({ path: z.string().meta({ description: "workspace-relative, `/`-separated" }), content: z.string(), revision: revision() })
  .meta({ id: "WorkspaceFile" });

export const writtenFileSchema = z.object({ path: z.string(), revision: revision() }).meta({ id: "WrittenFile" });

export const treeEntrySchema = z
  .object({
    name: z.string(),
    path: z.string().meta({ description: "workspace-relative, `/`-separated: what the file routes and `?path=` take" }),
    type: z.enum(["file", "directory", "symlink", "other"]).meta({ description: "a symlink is listed as such and never followed" }),
    size: z.number().int().nullable().meta({ description: "bytes, for files; null otherwise" }),
  })
  .meta({ id: "TreeEntry" });

export const workspaceTreeSchema = z
  .object({
    path: z.string().meta({ description: 'the directory listed, workspace-relative; `""` for the root' }),
    entries: z.array(treeEntrySchema).meta({ description: "directories first, then by name" }),
    truncated: z.boolean().meta({ description: "the directory holds more entries than were returned (at most 1000)" }),
  })
  .meta({ id: "WorkspaceTree" });
