// A real SMTP server on a free loopback port for the email tests (smtp-server), which parses every
// message it accepts (mailparser) and counts them: what "sent exactly once" is checked against.
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  parsed: ParsedMail;
  /** RCPT TO of the transaction (to and cc together). */
  recipients: string[];
}

export interface TestSmtpServer {
  /** `smtp://127.0.0.1:<port>` with throwaway credentials (the password must never show anywhere). */
  url: string;
  password: string;
  received: ReceivedMail[];
  /**
   * Called once a message's data has fully arrived, before the server answers 250: the crash test
   * kills the sending worker here. The message is counted as received either way.
   */
  beforeAccept: ((mail: ReceivedMail) => Promise<void> | void) | undefined;
  close(): Promise<void>;
}

export async function startTestSmtpServer(): Promise<TestSmtpServer> {
  const password = `smtp-secret-${Math.random().toString(36).slice(2)}`;
  const state: TestSmtpServer = {
    url: "",
    password,
    received: [],
    beforeAccept: undefined,
    close: async () => undefined,
  };
  const server = new SMTPServer({
    // Plain SMTP on loopback: nodemailer would otherwise upgrade with STARTTLS to a self-signed certificate.
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === "agentq" && auth.password === password) callback(null, { user: auth.username });
      else callback(new Error("invalid credentials"));
    },
    // Recipients at refused.example are refused (550): a send the server turns down, nothing delivered.
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith("@refused.example")) callback(Object.assign(new Error("no such mailbox"), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then(async (parsed) => {
          const mail = { parsed, recipients: session.envelope.rcptTo.map((recipient) => recipient.address) };
          state.received.push(mail);
          await state.beforeAccept?.(mail);
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.server.address();
  if (address === null || typeof address === "string") throw new Error("the SMTP server has no port");
  state.url = `smtp://agentq:${password}@127.0.0.1:${address.port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
