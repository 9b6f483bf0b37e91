import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiErrorFromBody, networkError } from "./api-error.ts";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import { readToken } from "./token-store.ts";

export type ExportFormat = "markdown" | "html" | "pdf";

export function useDocuments(query: string) {
  return useQuery({
    queryKey: queryKeys.documents.list(query),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/documents", { params: { query: query ? { query } : {} }, signal })).then((body) => body.documents),
  });
}

export function useDocument(documentId: string | undefined) {
  return useQuery({
    queryKey: queryKeys.documents.detail(documentId ?? ""),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/documents/{id}", { params: { path: { id: documentId! } }, signal })),
    enabled: documentId !== undefined,
  });
}

export function useDocumentRevisions(documentId: string) {
  return useQuery({
    queryKey: queryKeys.documents.revisions(documentId),
    queryFn: async ({ signal }) =>
      unwrap(api.GET("/api/documents/{id}/revisions", { params: { path: { id: documentId } }, signal })).then((body) => body.revisions),
  });
}

/** A document at one revision; revisions never change, so it is fetched once. */
export function useDocumentRevision(documentId: string, revision: number | undefined) {
  return useQuery({
    queryKey: queryKeys.documents.revision(documentId, revision ?? 0),
    queryFn: async ({ signal }) =>
      unwrap(api.GET("/api/documents/{id}/revisions/{revision}", { params: { path: { id: documentId, revision: String(revision) } }, signal })),
    enabled: revision !== undefined,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useCreateDocument() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { title: string; content: string }) => unwrap(api.POST("/api/documents", { body: input })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.documents.all }),
  });
}

export function useUpdateDocument(documentId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { title: string; content: string; baseRevision: number }) =>
      unwrap(
        api.PUT("/api/documents/{id}", {
          params: { path: { id: documentId } },
          body: { title: input.title, content: input.content, base_revision: input.baseRevision },
        }),
      ),
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.documents.detail(documentId), saved);
      return queryClient.invalidateQueries({ queryKey: queryKeys.documents.all });
    },
  });
}

export function useDeleteDocument() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (documentId: string) => unwrap(api.DELETE("/api/documents/{id}", { params: { path: { id: documentId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.documents.all }),
  });
}

/**
 * Downloads an export: fetched with the session's Authorization header and handed to the browser as
 * a file, so the token never goes into a URL (api/token-store.ts).
 */
export async function downloadDocumentExport(documentId: string, format: ExportFormat): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`/api/documents/${encodeURIComponent(documentId)}/export?format=${format}`, {
      headers: { Authorization: `Bearer ${readToken() ?? ""}` },
    });
  } catch {
    throw networkError();
  }
  if (!response.ok) throw apiErrorFromBody(response.status, await response.json().catch(() => undefined));
  const disposition = response.headers.get("content-disposition") ?? "";
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `document.${format === "markdown" ? "md" : format}`;
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement("a");
    link.href = url;
    link.download = filename;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
