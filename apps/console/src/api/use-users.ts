import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import type { Role } from "./types.ts";

/** The answer holds the new user's token: it is shown once and never again. */
export function useCreateUser() {
  return useMutation({
    mutationFn: async (input: { name: string; role: Role }) => unwrap(api.POST("/api/users", { body: input })),
  });
}
