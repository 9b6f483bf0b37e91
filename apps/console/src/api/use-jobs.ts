import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client.ts";
import { queryKeys } from "./query-keys.ts";

const RUNNING_JOBS_REFRESH_MS = 5_000;
/** How much output one read asks for: 256 KiB. */
const OUTPUT_READ_BYTES = 256 * 1024;

export function useJobs() {
  return useQuery({
    queryKey: queryKeys.jobs.list(),
    queryFn: async ({ signal }) => unwrap(api.GET("/api/jobs", { signal })).then((body) => body.jobs),
    refetchInterval: (query) => (query.state.data?.some((job) => job.status === "running") ? RUNNING_JOBS_REFRESH_MS : false),
  });
}

/** The job's output from the start (up to 256 KiB), refreshed while the job runs. */
export function useJobOutput(jobId: string, running: boolean) {
  return useQuery({
    queryKey: queryKeys.jobs.output(jobId),
    queryFn: async ({ signal }) =>
      unwrap(api.GET("/api/jobs/{id}/output", { params: { path: { id: jobId }, query: { offset: "0", max_bytes: String(OUTPUT_READ_BYTES) } }, signal })),
    refetchInterval: running ? RUNNING_JOBS_REFRESH_MS : false,
  });
}

export function useStopJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (jobId: string) => unwrap(api.POST("/api/jobs/{id}/stop", { params: { path: { id: jobId } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.jobs.all }),
  });
}
