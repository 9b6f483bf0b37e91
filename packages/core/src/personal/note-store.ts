import { z } from "zod";
import { NotFoundError } from "../errors/agentq-error.ts";
import type { GenerateId } from "../ids.ts";
import { queryParsed, type SqlRunner } from "../store/sql-pool.ts";
import { deleteOwnRow, isoUtc, likePattern, tagsField, titleField, uniqueTags, updateOwnRow } from "./personal-fields.ts";

/** A note as the API returns it (API.md "Personal data"). */
export interface NoteView {
  id: string;
  title: string;
  content: string;
  tags: string[];
  created_at: string;
  updated_at: string;
}

export const noteCreateSchema = z.object({
  title: titleField().describe("The note's title."),
  content: z.string().max(200_000).default("").describe("The note's text (markdown is fine)."),
  tags: tagsField().default([]).describe("Tags to find the note by."),
});

export const notePatchSchema = z.object({
  title: titleField().optional(),
  content: z.string().max(200_000).optional(),
  tags: tagsField().optional().describe("Replaces the note's tags."),
});

export const noteFilterSchema = z.object({
  query: z.string().trim().min(1).max(500).optional().describe("Text the title or content contains (case-insensitive)."),
  tag: z.string().trim().min(1).max(100).optional().describe("Only notes with this tag."),
});

/** The most notes one list answers, newest change first. */
export const NOTE_LIST_LIMIT = 200;

const COLUMNS = "id, title, content, COALESCE(tags, '{}') AS tags, created_at, updated_at";
const noteRow = z.object({ id: z.string(), title: z.string(), content: z.string(), tags: z.array(z.string()), created_at: z.date(), updated_at: z.date() });

function toNoteView(row: z.output<typeof noteRow>): NoteView {
  return { ...row, created_at: isoUtc(row.created_at), updated_at: isoUtc(row.updated_at) };
}

export async function createNote(runner: SqlRunner, generateId: GenerateId, userId: string, input: z.output<typeof noteCreateSchema>): Promise<NoteView> {
  const [row] = await queryParsed(
    runner,
    `INSERT INTO notes (id, user_id, title, content, tags) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [generateId("note"), userId, input.title, input.content, uniqueTags(input.tags)],
    noteRow,
  );
  return toNoteView(row!);
}

export async function listNotes(runner: SqlRunner, userId: string, filter: z.output<typeof noteFilterSchema>): Promise<NoteView[]> {
  const rows = await queryParsed(
    runner,
    `SELECT ${COLUMNS} FROM notes WHERE user_id = $1
       AND ($2::text IS NULL OR title ILIKE $2 OR content ILIKE $2)
       AND ($3::text IS NULL OR $3 = ANY(tags))
     ORDER BY updated_at DESC, id LIMIT ${NOTE_LIST_LIMIT}`,
    [userId, filter.query === undefined ? null : likePattern(filter.query), filter.tag ?? null],
    noteRow,
  );
  return rows.map(toNoteView);
}

export async function getNote(runner: SqlRunner, userId: string, noteId: string): Promise<NoteView> {
  const [row] = await queryParsed(runner, `SELECT ${COLUMNS} FROM notes WHERE id = $1 AND user_id = $2`, [noteId, userId], noteRow);
  if (!row) throw new NotFoundError("note");
  return toNoteView(row);
}

export async function updateNote(runner: SqlRunner, userId: string, noteId: string, patch: z.output<typeof notePatchSchema>): Promise<NoteView> {
  const row = await updateOwnRow(runner, {
    table: "notes",
    resource: "note",
    columns: COLUMNS,
    userId,
    id: noteId,
    changes: { title: patch.title, content: patch.content, tags: patch.tags === undefined ? undefined : uniqueTags(patch.tags) },
    row: noteRow,
  });
  return toNoteView(row);
}

export function deleteNote(runner: SqlRunner, userId: string, noteId: string): Promise<void> {
  return deleteOwnRow(runner, { table: "notes", resource: "note", userId, id: noteId });
}
