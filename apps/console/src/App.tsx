import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { Suspense } from "react";
import { ApiError } from "./api/api-error.ts";
import { useToken } from "./api/use-session.ts";
import { ErrorBoundary } from "./components/ErrorBoundary/ErrorBoundary.tsx";
import { Loading } from "./components/Loading/Loading.tsx";
import { lazyComponent } from "./lib/load-code.ts";
import { SignInPage } from "./pages/SignInPage/SignInPage.tsx";

// The sign-in form is all a signed-out visit needs: the router, the shell and the pages are fetched
// and compiled once there is a token (router.tsx splits each page into a file of its own).
const ConsoleRouter = lazyComponent(() => import("./router.tsx").then((module) => module.ConsoleRouter));

function shouldRetry(failureCount: number, error: unknown): boolean {
  // A 4xx will answer the same again; an outage or a network error may pass.
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}

const queryClient = new QueryClient({
  queryCache: new QueryCache(),
  defaultOptions: {
    queries: { retry: shouldRetry, staleTime: 10_000, refetchOnWindowFocus: true },
    mutations: { retry: false },
  },
});

function SignedInOrNot() {
  const token = useToken();
  // Signed out (or the token was refused): the sign-in page replaces the app at the same URL,
  // so signing in continues where the person was going.
  if (token === null) return <SignInPage />;
  // Around the router, whose own boundaries catch the pages' failures: a router file that cannot be
  // fetched (the console updated since the tab opened) says so instead of leaving a blank page.
  return (
    <ErrorBoundary>
      <Suspense fallback={<Loading label="Loading the console…" />}>
        <ConsoleRouter />
      </Suspense>
    </ErrorBoundary>
  );
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <SignedInOrNot />
    </QueryClientProvider>
  );
}
