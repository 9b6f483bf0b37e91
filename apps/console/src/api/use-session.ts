import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useSyncExternalStore } from "react";
import { clearToken, onTokenChange, readToken, saveToken } from "./token-store.ts";

/** The signed-in token, or null: re-renders when it is saved, cleared, or refused by the API (401). */
export function useToken(): string | null {
  return useSyncExternalStore(onTokenChange, readToken);
}

export function useSignIn(): (token: string) => void {
  const queryClient = useQueryClient();
  return useCallback(
    (token: string) => {
      queryClient.clear();
      saveToken(token);
    },
    [queryClient],
  );
}

/** Forgets the token and everything fetched with it. */
export function useSignOut(): () => void {
  const queryClient = useQueryClient();
  return useCallback(() => {
    clearToken();
    queryClient.clear();
  }, [queryClient]);
}
