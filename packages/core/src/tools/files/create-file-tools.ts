import type { ToolDefinition } from "../tool-definition.ts";
import { createEditFileTool } from "./edit-file-tool.ts";
import type { EditFileToolOptions } from "./edit-file-tool.ts";
import { createListFilesTool } from "./list-files-tool.ts";
import type { ListFilesToolOptions } from "./list-files-tool.ts";
import { createReadFileTool } from "./read-file-tool.ts";
import type { ReadFileToolOptions } from "./read-file-tool.ts";
import { createSearchFilesTool } from "./search-files-tool.ts";
import type { SearchFilesToolOptions } from "./search-files-tool.ts";
import { createWriteFileTool } from "./write-file-tool.ts";
import type { WriteFileToolOptions } from "./write-file-tool.ts";

/** Per-tool limits; every field is optional and each tool documents its defaults. */
export interface FileToolsOptions {
  readFile?: ReadFileToolOptions;
  listFiles?: ListFilesToolOptions;
  searchFiles?: SearchFilesToolOptions;
  writeFile?: WriteFileToolOptions;
  editFile?: EditFileToolOptions;
}

/** The `files` family: read_file, list_files, search_files, write_file, edit_file. */
export function createFileTools(options: FileToolsOptions = {}): ToolDefinition[] {
  return [
    createReadFileTool(options.readFile),
    createListFilesTool(options.listFiles),
    createSearchFilesTool(options.searchFiles),
    createWriteFileTool(options.writeFile),
    createEditFileTool(options.editFile),
  ];
}
