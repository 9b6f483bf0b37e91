import { describe, expect, it } from "vitest";
import { classifyDeliveryError } from "./smtp-email-transport.ts";

describe("classifyDeliveryError", () => {
  it("a refusal by the server, a failed login or a connection that never opened: nothing was sent", () => {
    expect(classifyDeliveryError(Object.assign(new Error("550 mailbox unavailable"), { code: "EMESSAGE", responseCode: 550, command: "DATA" })).kind).toBe(
      "not_sent",
    );
    expect(classifyDeliveryError(Object.assign(new Error("Invalid login"), { code: "EAUTH", command: "AUTH PLAIN" })).kind).toBe("not_sent");
    expect(classifyDeliveryError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ESOCKET", command: "CONN" })).kind).toBe("not_sent");
  });

  it("a socket that broke or timed out with the message in flight: in doubt", () => {
    expect(classifyDeliveryError(Object.assign(new Error("Connection closed unexpectedly"), { code: "ECONNECTION" })).kind).toBe("in_doubt");
    expect(classifyDeliveryError(Object.assign(new Error("Timeout"), { code: "ETIMEDOUT", command: "DATA" })).kind).toBe("in_doubt");
    expect(classifyDeliveryError("weird").kind).toBe("in_doubt");
  });
});
