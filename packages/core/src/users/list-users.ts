import { type PrismaClient, sqlPoolOf } from "../store/create-prisma-client.ts";
import { selectUsers } from "../store/statements/user-statements.ts";
import { toUserView, type UserView } from "./user-view.ts";

/** Every user of the deployment, oldest first (for admins: the route checks the role). */
export async function listUsers(prisma: PrismaClient): Promise<UserView[]> {
  return (await selectUsers(sqlPoolOf(prisma))).map(toUserView);
}
