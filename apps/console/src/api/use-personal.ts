import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";
import type { TaskStatus } from "./types.ts";

// Personal data (notes, tasks, calendar, memories): one hook per read and per change; a change
// refreshes every list of its kind (filters included).

export interface NoteInput {
  title: string;
  content: string;
  tags: string[];
}

export function useNotes(filter: { query?: string; tag?: string }) {
  return useQuery({
    queryKey: queryKeys.notes.list(filter),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/notes", { params: { query: filter }, signal })).then((body) => body.notes),
    // While a new search loads, the last answer stays on screen (no flash of "loading" per keystroke).
    placeholderData: (previous) => previous,
  });
}

export function useSaveNote() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, ...input }: NoteInput & { id?: string }) =>
      id === undefined ? unwrap(api.POST("/api/notes", { body: input })) : unwrap(api.PATCH("/api/notes/{id}", { params: { path: { id } }, body: input })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.notes.all }),
  });
}

export function useDeleteNote() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => unwrap(api.DELETE("/api/notes/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.notes.all }),
  });
}

/** `status` "all" lists both. */
export function useTasks(status: TaskStatus | "all") {
  return useQuery({
    queryKey: queryKeys.tasks.list(status),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/tasks", { params: { query: status === "all" ? {} : { status } }, signal })).then((body) => body.tasks),
  });
}

export function useCreateTask() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { title: string; notes: string; due_at: string | null }) => unwrap(api.POST("/api/tasks", { body: input })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.tasks.all }),
  });
}

export function useUpdateTask() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, ...changes }: { id: string; status?: TaskStatus; title?: string }) =>
      unwrap(api.PATCH("/api/tasks/{id}", { params: { path: { id } }, body: changes })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.tasks.all }),
  });
}

export function useDeleteTask() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => unwrap(api.DELETE("/api/tasks/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.tasks.all }),
  });
}

/** The events that overlap [from, to) (ISO times). */
export function useCalendarEvents(from: string, to: string) {
  return useQuery({
    queryKey: queryKeys.calendar.week(from, to),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/calendar/events", { params: { query: { from, to } }, signal })).then((body) => body.events),
  });
}

export interface EventInput {
  title: string;
  starts_at: string;
  ends_at?: string;
  all_day: boolean;
  location: string | null;
}

export function useCreateEvent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: EventInput) => unwrap(api.POST("/api/calendar/events", { body: input })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.calendar.all }),
  });
}

export function useDeleteEvent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => unwrap(api.DELETE("/api/calendar/events/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.calendar.all }),
  });
}

/** Newest first, or the best matches of `query` when it is not empty. */
export function useMemories(query: string) {
  return useQuery({
    queryKey: queryKeys.memories.list(query),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/memories", { params: { query: query ? { query } : {} }, signal })).then((body) => body.memories),
    placeholderData: (previous) => previous,
  });
}

export function useCreateMemory() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { content: string; tags: string[] }) => unwrap(api.POST("/api/memories", { body: input })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.memories.all }),
  });
}

export function useDeleteMemory() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => unwrap(api.DELETE("/api/memories/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.memories.all }),
  });
}

/** "a, b ,c" → ["a", "b", "c"]. */
export function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(",")
        .map((tag) => tag.trim())
        .filter((tag) => tag !== ""),
    ),
  ];
}
