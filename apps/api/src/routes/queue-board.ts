import { defineRoute } from "../http/api-route.ts";
import { BOARD_COOKIE, BOARD_SESSION_SECONDS, signBoardSession } from "../queue-board/board-session.ts";
import { QUEUE_BOARD_PATH } from "../queue-board/mount-queue-board.ts";

export const queueBoardRoutes = [
  defineRoute({
    method: "post",
    path: "/api/queue-board/session",
    operationId: "openQueueBoardSession",
    summary: "Let this browser open the queue board (admin)",
    description:
      `Sets an HttpOnly cookie, valid for an hour and only under ${QUEUE_BOARD_PATH}, with which a browser opens Bull Board there. ` +
      "The admin role is checked again at every request of the board.",
    access: "admin",
    responses: { 204: { description: "the cookie is set; open /admin/queues/" } },
    handler: ({ dependencies, request, response, user }) => {
      const expiresAt = Date.now() + BOARD_SESSION_SECONDS * 1000;
      response.cookie(BOARD_COOKIE, signBoardSession(dependencies.runs.approvalSecret, user.id, expiresAt), {
        httpOnly: true,
        sameSite: "strict",
        secure: request.secure,
        path: QUEUE_BOARD_PATH,
        maxAge: BOARD_SESSION_SECONDS * 1000,
      });
      return { status: 204 };
    },
  }),
];
