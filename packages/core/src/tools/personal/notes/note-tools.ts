import { z } from "zod";
import { createNote, deleteNote, getNote, listNotes, noteCreateSchema, noteFilterSchema, notePatchSchema, updateNote } from "../../../personal/note-store.ts";
import { idField } from "../../../personal/personal-fields.ts";
import type { ToolDefinition } from "../../tool-definition.ts";
import { type PersonalStore, recordLines, withPersonalStore } from "../personal-tool-support.ts";

const noteId = idField("The note_id of the note.");
const common = { family: "personal", feature: "notes", requiresWorkspace: false } as const;

/**
 * The user's notes (API.md "Personal data"): reading them taints the run (their text may have come from
 * anywhere); creating, changing and deleting are `write` effects.
 */
export function createNoteTools(store: PersonalStore | null): ToolDefinition[] {
  const create: ToolDefinition<z.output<typeof noteCreateSchema>> = {
    ...common,
    name: "create_note",
    description: "Create a note for the user (title, content, optional tags). Returns its note_id.",
    parameters: noteCreateSchema,
    effects: ["write"],
    taints: false,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner, generateId }) => {
        const note = await createNote(runner, generateId, context.userId, args);
        return { ok: true, output: `Created note "${note.title}". note_id: ${note.id}`, data: { note_id: note.id } };
      }),
  };

  const list: ToolDefinition<z.output<typeof noteFilterSchema>> = {
    ...common,
    name: "list_notes",
    description: "List the user's notes, newest change first, optionally those whose title or content contains `query` or that have `tag`.",
    parameters: noteFilterSchema,
    effects: ["read"],
    taints: true,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner }) => {
        const notes = await listNotes(runner, context.userId, args);
        return { ok: true, output: recordLines("notes", notes), data: { count: notes.length } };
      }),
    describeCall: (args) => `notes${args.query ? ` matching "${args.query}"` : ""}${args.tag ? ` tagged ${args.tag}` : ""}`,
  };

  const read: ToolDefinition<{ note_id: string }> = {
    ...common,
    name: "read_note",
    description: "Read one note in full.",
    parameters: z.object({ note_id: noteId }),
    effects: ["read"],
    taints: true,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner }) => ({ ok: true, output: JSON.stringify(await getNote(runner, context.userId, args.note_id)) })),
    describeCall: (args) => `note ${args.note_id}`,
  };

  const update: ToolDefinition<z.output<typeof notePatchSchema> & { note_id: string }> = {
    ...common,
    name: "update_note",
    description: "Change a note: only the fields given change (tags replaces the list).",
    parameters: notePatchSchema.extend({ note_id: noteId }),
    effects: ["write"],
    taints: false,
    execute: ({ note_id, ...patch }, context) =>
      withPersonalStore(store, async ({ runner }) => {
        const note = await updateNote(runner, context.userId, note_id, patch);
        return { ok: true, output: `Updated note "${note.title}". note_id: ${note.id}`, data: { note_id: note.id } };
      }),
  };

  const remove: ToolDefinition<{ note_id: string }> = {
    ...common,
    name: "delete_note",
    description: "Delete a note.",
    parameters: z.object({ note_id: noteId }),
    effects: ["write"],
    taints: false,
    execute: (args, context) =>
      withPersonalStore(store, async ({ runner }) => {
        await deleteNote(runner, context.userId, args.note_id);
        return { ok: true, output: `Deleted note ${args.note_id}.` };
      }),
  };

  return [create, list, read, update, remove];
}
