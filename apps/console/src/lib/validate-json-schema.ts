// Checks edited tool arguments against the tool's JSON Schema (from GET /api/tools) before they are
// sent. Not Ajv: Ajv compiles every schema with `new Function`, which the console's
// Content-Security-Policy (`script-src 'self'`, no 'unsafe-eval') forbids. This interprets the
// keywords the tools' schemas use (zod's JSON Schema output); unknown keywords are not checked
// here, and the server validates the call again in any case.

export interface SchemaError {
  /** Where, as a JSON pointer-like path: "" for the whole value, "/content", "/items/0". */
  path: string;
  message: string;
}

type Schema = boolean | Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === "number") return actual === "number" || actual === "integer";
  return actual === type;
}

function describeType(type: unknown): string {
  return Array.isArray(type) ? type.join(" or ") : String(type);
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function asSchema(value: unknown): Schema | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  return undefined;
}

function label(path: string): string {
  return path === "" ? "the arguments" : path.slice(1).replaceAll("/", ".");
}

function check(schema: Schema, value: unknown, path: string, errors: SchemaError[], root: Record<string, unknown>): void {
  if (schema === true) return;
  if (schema === false) {
    errors.push({ path, message: `${label(path)} is not allowed` });
    return;
  }
  if (typeof schema.$ref === "string") {
    const target = resolveReference(root, schema.$ref);
    if (target !== undefined) check(target, value, path, errors, root);
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type)];
    if (!types.some((type) => matchesType(value, type))) {
      errors.push({ path, message: `${label(path)} must be ${describeType(schema.type)}, not ${typeOf(value)}` });
      return;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, value))) {
    errors.push({ path, message: `${label(path)} must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(", ")}` });
  }
  if ("const" in schema && !deepEqual(schema.const, value)) {
    errors.push({ path, message: `${label(path)} must be ${JSON.stringify(schema.const)}` });
  }
  if (typeof value === "string") checkString(schema, value, path, errors);
  if (typeof value === "number") checkNumber(schema, value, path, errors);
  if (Array.isArray(value)) checkArray(schema, value, path, errors, root);
  else if (typeof value === "object" && value !== null) checkObject(schema, value as Record<string, unknown>, path, errors, root);
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) check(asSchema(part) ?? true, value, path, errors, root);
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const options = schema[keyword];
    if (!Array.isArray(options)) continue;
    const matching = options.filter((option) => {
      const optionErrors: SchemaError[] = [];
      check(asSchema(option) ?? true, value, path, optionErrors, root);
      return optionErrors.length === 0;
    }).length;
    if (keyword === "anyOf" ? matching === 0 : matching !== 1) errors.push({ path, message: `${label(path)} does not match any allowed form` });
  }
}

function checkString(schema: Record<string, unknown>, value: string, path: string, errors: SchemaError[]): void {
  const length = [...value].length;
  if (typeof schema.minLength === "number" && length < schema.minLength) {
    errors.push({
      path,
      message: schema.minLength === 1 ? `${label(path)} must not be empty` : `${label(path)} must be at least ${schema.minLength} characters`,
    });
  }
  if (typeof schema.maxLength === "number" && length > schema.maxLength)
    errors.push({ path, message: `${label(path)} must be at most ${schema.maxLength} characters` });
  if (typeof schema.pattern === "string") {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(schema.pattern, "u");
    } catch {
      pattern = undefined;
    }
    if (pattern && !pattern.test(value)) errors.push({ path, message: `${label(path)} does not have the expected format` });
  }
}

function checkNumber(schema: Record<string, unknown>, value: number, path: string, errors: SchemaError[]): void {
  if (typeof schema.minimum === "number" && value < schema.minimum) errors.push({ path, message: `${label(path)} must be at least ${schema.minimum}` });
  if (typeof schema.maximum === "number" && value > schema.maximum) errors.push({ path, message: `${label(path)} must be at most ${schema.maximum}` });
  if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) {
    errors.push({ path, message: `${label(path)} must be more than ${schema.exclusiveMinimum}` });
  }
  if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) {
    errors.push({ path, message: `${label(path)} must be less than ${schema.exclusiveMaximum}` });
  }
}

function checkArray(schema: Record<string, unknown>, value: unknown[], path: string, errors: SchemaError[], root: Record<string, unknown>): void {
  if (typeof schema.minItems === "number" && value.length < schema.minItems)
    errors.push({ path, message: `${label(path)} must have at least ${schema.minItems} items` });
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
    errors.push({ path, message: `${label(path)} must have at most ${schema.maxItems} items` });
  const items = asSchema(schema.items);
  if (items === undefined) return;
  for (const [index, item] of value.entries()) check(items, item, `${path}/${index}`, errors, root);
}

function checkObject(
  schema: Record<string, unknown>,
  value: Record<string, unknown>,
  path: string,
  errors: SchemaError[],
  root: Record<string, unknown>,
): void {
  const properties = (asSchema(schema.properties) ?? {}) as Record<string, unknown>;
  if (Array.isArray(schema.required)) {
    for (const name of schema.required) {
      if (typeof name === "string" && !(name in value)) errors.push({ path: `${path}/${name}`, message: `${label(`${path}/${name}`)} is required` });
    }
  }
  for (const [name, item] of Object.entries(value)) {
    const propertySchema = asSchema(properties[name]);
    if (propertySchema !== undefined) {
      check(propertySchema, item, `${path}/${name}`, errors, root);
      continue;
    }
    const additional = asSchema(schema.additionalProperties);
    if (additional === false) errors.push({ path: `${path}/${name}`, message: `${label(`${path}/${name}`)} is not a known argument` });
    else if (additional !== undefined) check(additional, item, `${path}/${name}`, errors, root);
  }
}

/** Local references only ("#/$defs/Name"), which is all zod emits. */
function resolveReference(root: Record<string, unknown>, reference: string): Schema | undefined {
  if (!reference.startsWith("#")) return undefined;
  let current: unknown = root;
  for (const part of reference.slice(1).split("/").filter(Boolean)) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[part.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return asSchema(current);
}

/** Every way `value` breaks `schema` (empty when it conforms). */
export function validateJsonSchema(schema: unknown, value: unknown): SchemaError[] {
  const root = asSchema(schema);
  if (root === undefined) return [];
  const errors: SchemaError[] = [];
  check(root, value, "", errors, typeof root === "object" ? root : {});
  return errors;
}
