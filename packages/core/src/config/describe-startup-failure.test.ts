import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { describeStartupFailure } from "./describe-startup-failure.ts";

const targets = { host: "127.0.0.1", port: 3000, databaseUrl: "postgresql://agentq:secret@127.0.0.1:5432/agentq", redisUrl: "redis://127.0.0.1:6379" };

describe("describeStartupFailure", () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  it("a port in use names PORT and HOST (a real EADDRINUSE from listen)", async () => {
    const first = createServer();
    servers.push(first);
    await new Promise<void>((resolve) => first.listen(0, "127.0.0.1", resolve));
    const port = (first.address() as { port: number }).port;
    const second = createServer();
    servers.push(second);
    const error = await new Promise<Error>((resolve) => {
      second.once("error", resolve);
      second.listen(port, "127.0.0.1");
    });
    const failure = describeStartupFailure(error, { ...targets, port });
    expect(failure.variables).toEqual(["PORT", "HOST"]);
    expect(failure.message).toBe(`127.0.0.1:${port} is already in use (another agentq, or another program): stop it, or set PORT (and HOST) to a free address`);
  });

  it("a refused connection names DATABASE_URL or REDIS_URL by the address it was refused at, without the password", () => {
    const refused = (port: number) => Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: "ECONNREFUSED", address: "127.0.0.1", port });
    const database = describeStartupFailure(refused(5432), targets);
    expect(database).toEqual({
      message: "Postgres at 127.0.0.1:5432 does not answer (ECONNREFUSED): start it, or set DATABASE_URL",
      variables: ["DATABASE_URL"],
    });
    const redis = describeStartupFailure(new AggregateError([refused(6379)], "connect failed"), targets);
    expect(redis.variables).toEqual(["REDIS_URL"]);
    expect(JSON.stringify([database, redis])).not.toContain("secret");
  });

  it("refused credentials and a missing database name DATABASE_URL; anything else keeps its message", () => {
    const auth = describeStartupFailure(Object.assign(new Error('password authentication failed for user "agentq"'), { code: "28P01" }), targets);
    expect(auth.variables).toEqual(["DATABASE_URL"]);
    expect(auth.message).toContain("check the user and password in DATABASE_URL");
    expect(describeStartupFailure(Object.assign(new Error('database "agentq" does not exist'), { code: "3D000" }), targets).message).toContain(
      "npm run migrate",
    );
    expect(describeStartupFailure(new Error("something else"), targets)).toEqual({ message: "something else", variables: [] });
  });
});
