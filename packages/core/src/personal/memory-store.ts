import { z } from "zod";
import type { GenerateId } from "../ids.ts";
import { queryParsed, type SqlRunner } from "../store/sql-pool.ts";
import { deleteOwnRow, isoUtc, tagsField, uniqueTags } from "./personal-fields.ts";

/** A memory as the API returns it (API.md "Personal data"). */
export interface MemoryView {
  id: string;
  content: string;
  tags: string[];
  created_at: string;
}

export const memoryCreateSchema = z.object({
  content: z.string().trim().min(1, "content must not be empty").max(20_000).describe("The fact to remember, in a sentence that stands on its own."),
  tags: tagsField().default([]).describe("Tags to find it by."),
});

/** Default and largest number of memories one recall answers. */
export const DEFAULT_RECALL_LIMIT = 10;
export const MAX_RECALL_LIMIT = 100;
/** The most memories a list without a query answers, newest first. */
export const MEMORY_LIST_LIMIT = 500;
/**
 * How alike a query and a memory must be for the trigram fallback (word_similarity, 0..1): 0.3 finds
 * "wifi pasword" in "The office wifi password is ..." and a three-letter prefix, and little noise.
 */
const TRIGRAM_THRESHOLD = 0.3;

const COLUMNS = "id, content, COALESCE(tags, '{}') AS tags, created_at";
const memoryRow = z.object({ id: z.string(), content: z.string(), tags: z.array(z.string()), created_at: z.date() });

function toMemoryView(row: z.output<typeof memoryRow>): MemoryView {
  return { id: row.id, content: row.content, tags: row.tags, created_at: isoUtc(row.created_at) };
}

export async function createMemory(runner: SqlRunner, generateId: GenerateId, userId: string, input: z.output<typeof memoryCreateSchema>): Promise<MemoryView> {
  const [row] = await queryParsed(
    runner,
    `INSERT INTO memories (id, user_id, content, tags) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [generateId("memory"), userId, input.content, uniqueTags(input.tags)],
    memoryRow,
  );
  return toMemoryView(row!);
}

export async function listMemories(runner: SqlRunner, userId: string): Promise<MemoryView[]> {
  const rows = await queryParsed(
    runner,
    `SELECT ${COLUMNS} FROM memories WHERE user_id = $1 ORDER BY created_at DESC, id LIMIT ${MEMORY_LIST_LIMIT}`,
    [userId],
    memoryRow,
  );
  return rows.map(toMemoryView);
}

/**
 * The caller's memories that best match `query`, best first: full-text matches (the generated
 * tsvector, its GIN index, websearch_to_tsquery: quotes, `or`, `-word`), ranked by ts_rank_cd; when
 * there are none, trigram matches of content and tags (pg_trgm word_similarity), which catch what
 * full-text search cannot: a misspelt word, a prefix, a query of stop words.
 */
export async function recallMemories(runner: SqlRunner, userId: string, input: { query: string; limit: number }): Promise<MemoryView[]> {
  const ranked = await queryParsed(
    runner,
    `SELECT ${COLUMNS} FROM memories, websearch_to_tsquery('english', $2) AS query
     WHERE user_id = $1 AND search @@ query
     ORDER BY ts_rank_cd(search, query) DESC, created_at DESC LIMIT $3`,
    [userId, input.query, input.limit],
    memoryRow,
  );
  if (ranked.length > 0) return ranked.map(toMemoryView);
  const similar = await queryParsed(
    runner,
    `SELECT ${COLUMNS} FROM (
       SELECT *, word_similarity($2, content || ' ' || array_to_string(COALESCE(tags, '{}'), ' ')) AS similarity
       FROM memories WHERE user_id = $1
     ) AS candidates
     WHERE similarity >= ${TRIGRAM_THRESHOLD}
     ORDER BY similarity DESC, created_at DESC LIMIT $3`,
    [userId, input.query, input.limit],
    memoryRow,
  );
  return similar.map(toMemoryView);
}

export function deleteMemory(runner: SqlRunner, userId: string, memoryId: string): Promise<void> {
  return deleteOwnRow(runner, { table: "memories", resource: "memory", userId, id: memoryId });
}
