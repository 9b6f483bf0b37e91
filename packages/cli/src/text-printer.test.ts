import { describe, expect, it } from "vitest";
import { createTextPrinter } from "./text-printer.ts";

function printer() {
  let output = "";
  return { printer: createTextPrinter((text) => (output += text)), output: () => output };
}

describe("the CLI's text printer", () => {
  it("prints streamed text once, ending the line when the message completes", () => {
    const { printer: text, output } = printer();
    text.delta("Hel");
    text.delta("lo");
    text.messageCompleted("Hello");
    text.line("→ read_file a.txt");
    expect(output()).toBe("Hello\n→ read_file a.txt\n");
  });

  it("prints a message whose deltas were missed, and the rest of one whose end was missed", () => {
    const { printer: text, output } = printer();
    text.messageCompleted("All of it");
    text.delta("Sta");
    text.messageCompleted("Start and end");
    expect(output()).toBe("All of it\nStart and end\n");
  });

  it("keeps the next message's early deltas as its start", () => {
    const { printer: text, output } = printer();
    text.delta("First.");
    text.delta("Sec");
    text.messageCompleted("First.");
    text.delta("ond.");
    text.messageCompleted("Second.");
    expect(output()).toBe("First.Second.\n");
  });

  it("prints a message whole on its own line when the deltas do not fit it", () => {
    const { printer: text, output } = printer();
    text.delta("something else");
    text.messageCompleted("The answer");
    expect(output()).toBe("something else\nThe answer\n");
  });
});
