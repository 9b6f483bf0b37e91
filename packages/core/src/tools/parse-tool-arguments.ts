import type { z } from "zod";
import { exceedsJsonNesting, MAX_JSON_NESTING } from "../json/json-nesting.ts";
import type { ToolDefinition } from "./tool-definition.ts";

export type ParsedToolArguments<Args> = { ok: true; args: Args } | { ok: false; error: string };

/** At most this many schema problems are listed: a model fixes a few at a time anyway. */
const MAX_LISTED_ISSUES = 5;

/**
 * Parses the arguments text a model sent for a call. Failures are sentences addressed to the
 * model, naming the field and what was expected, so it can send a corrected call. An empty text
 * is read as `{}`: several providers send it for a call without arguments.
 */
export function parseToolArguments<Args>(tool: ToolDefinition<Args>, argumentsText: string): ParsedToolArguments<Args> {
  let value: unknown;
  if (argumentsText.trim() === "") {
    value = {};
  } else if (exceedsJsonNesting(argumentsText)) {
    return {
      ok: false,
      error: `The arguments of ${tool.name} nest arrays and objects more than ${MAX_JSON_NESTING} levels deep. Send a flat JSON object.`,
    };
  } else {
    try {
      value = JSON.parse(argumentsText);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        error: `The arguments of ${tool.name} are not valid JSON (${reason}). Send one JSON object, for example {"field": "value"}.`,
      };
    }
  }
  return validateToolArguments(tool, value);
}

/** Validates already-parsed arguments (an approval's edited arguments, a recovered call). */
export function validateToolArguments<Args>(tool: ToolDefinition<Args>, value: unknown): ParsedToolArguments<Args> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      error: `The arguments of ${tool.name} must be a JSON object, not ${describeValue(value)}.`,
    };
  }
  const result = tool.parameters.safeParse(value, { reportInput: true });
  if (result.success) return { ok: true, args: result.data };
  const problems = result.error.issues.slice(0, MAX_LISTED_ISSUES).map(describeIssue);
  const more = result.error.issues.length - problems.length;
  return {
    ok: false,
    error:
      `Invalid arguments for ${tool.name}: ${problems.join("; ")}${more > 0 ? `; and ${more} more problem(s)` : ""}. ` +
      `Correct them and call ${tool.name} again.`,
  };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.length === 0 ? "the arguments object" : `field "${issue.path.map(String).join(".")}"`;
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return `${field} is required (expected ${issue.expected})`;
      return `${field} must be ${article(issue.expected)}, not ${describeValue(issue.input)}`;
    case "unrecognized_keys":
      return `${field} has unknown field(s) ${issue.keys.map((key) => `"${key}"`).join(", ")}; remove them`;
    default:
      return `${field}: ${issue.message}`;
  }
}

function article(expected: string): string {
  if (expected === "int") return "an integer";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isInteger(value)) return `the number ${value}`;
  if (typeof value === "string") return `a string`;
  return article(typeof value);
}
