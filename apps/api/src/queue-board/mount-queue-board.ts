import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import { type NextFunction, type Request, type Response, Router } from "express";
import { recentSettings, selectEnabledUserRole } from "@agentq/core";
import type { ApiDependencies } from "../api-dependencies.ts";
import { BOARD_COOKIE, readCookie, verifyBoardSession } from "./board-session.ts";

export const QUEUE_BOARD_PATH = "/admin/queues";

/**
 * Bull Board over the run queue at /admin/queues, for admins only: a browser gets there with the
 * session cookie that POST /api/queue-board/session sets (the console's Admin page does it), and the
 * user's role is checked at every request. Read-only unless the setting `queue_board_actions` allows
 * retrying, promoting and removing jobs.
 */
export function queueBoard(dependencies: ApiDependencies): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  const adapter = (readOnlyMode: boolean) => new BullMQAdapter(dependencies.runs.queue, { readOnlyMode });
  const board = createBullBoard({ queues: [adapter(true)], serverAdapter });
  // The read-only switch follows the setting within recentSettings' 5 s.
  const settings = recentSettings(dependencies.prisma);
  let actionsAllowed = false;

  const router = Router();
  router.use(QUEUE_BOARD_PATH, async (request: Request, response: Response, next: NextFunction) => {
    try {
      const session = readCookie(request.headers.cookie, BOARD_COOKIE);
      const userId = session === undefined ? undefined : verifyBoardSession(dependencies.runs.approvalSecret, session, Date.now());
      if (userId === undefined) {
        response.status(401).type("text/plain").send("Open the queue board from the console's Admin page (it needs an admin's session).\n");
        return;
      }
      if ((await selectEnabledUserRole(dependencies.prisma, userId)) !== "admin") {
        response.status(403).type("text/plain").send("The queue board is for admins.\n");
        return;
      }
      const allowed = (await settings()).queue_board_actions;
      if (allowed !== actionsAllowed) {
        actionsAllowed = allowed;
        board.replaceQueues([adapter(!allowed)]);
      }
      next();
    } catch (error) {
      next(error);
    }
  });
  router.use(QUEUE_BOARD_PATH, serverAdapter.getRouter());
  return router;
}
