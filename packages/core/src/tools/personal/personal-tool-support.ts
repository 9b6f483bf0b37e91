import { AgentqError } from "../../errors/agentq-error.ts";
import type { GenerateId } from "../../ids.ts";
import type { SqlRunner } from "../../store/sql-pool.ts";
import type { ToolResult } from "../tool-definition.ts";

/** Where the personal tools keep their data: the process's pg pool (the worker's, or the API's for listing). */
export interface PersonalStore {
  runner: SqlRunner;
  generateId: GenerateId;
}

/**
 * Runs a personal tool's action: without a store (a process that only lists tools) the call is a tool
 * error, and so is an AgentqError (not found, bad input), with its message; other errors go to the executor.
 */
export async function withPersonalStore(store: PersonalStore | null, action: (store: PersonalStore) => Promise<ToolResult>): Promise<ToolResult> {
  if (store === null) return { ok: false, error: "personal data is not available in this process" };
  try {
    return await action(store);
  } catch (error) {
    if (error instanceof AgentqError) return { ok: false, error: error.message, data: { code: error.code } };
    throw error;
  }
}

/** Records as the model reads them: one JSON object per line, or a sentence when there are none. */
export function recordLines(kind: string, records: readonly object[]): string {
  if (records.length === 0) return `No ${kind} found.`;
  return `${records.length} ${kind}:\n${records.map((record) => JSON.stringify(record)).join("\n")}`;
}
