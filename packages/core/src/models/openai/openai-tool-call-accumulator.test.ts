import { describe, expect, it } from "vitest";
import { OpenAIToolCallAccumulator } from "./openai-tool-call-accumulator.ts";

describe("OpenAIToolCallAccumulator", () => {
  const ids = () => {
    let next = 0;
    return () => {
      next += 1;
      return `gen_${next}`;
    };
  };

  it("joins argument fragments by index, id and name from the first delta", () => {
    const accumulator = new OpenAIToolCallAccumulator(ids());
    accumulator.add({ index: 0, id: "a", type: "function", function: { name: "read_file", arguments: "" } });
    accumulator.add({ index: 1, id: "b", type: "function", function: { name: "list_files", arguments: "{}" } });
    accumulator.add({ index: 0, function: { arguments: '{"pa' } });
    accumulator.add({ index: 0, function: { arguments: 'th":"x"}' } });
    expect(accumulator.finish()).toEqual([
      { id: "a", name: "read_file", argumentsText: '{"path":"x"}' },
      { id: "b", name: "list_files", argumentsText: "{}" },
    ]);
  });

  it("separates calls a server sends all with index 0 but different ids, and generates missing ids", () => {
    const accumulator = new OpenAIToolCallAccumulator(ids());
    accumulator.add({ index: 0, id: "x1", function: { name: "read_file", arguments: '{"path":"1"}' } });
    accumulator.add({ index: 0, id: "x2", function: { name: "read_file", arguments: '{"path":"2"}' } });
    accumulator.add({ function: { name: "write_file", arguments: '{"path":"3"}' } });
    accumulator.add({ index: 5, function: { name: "list_files", arguments: "" } });
    expect(accumulator.finish()).toEqual([
      { id: "x1", name: "read_file", argumentsText: '{"path":"1"}' },
      { id: "x2", name: "read_file", argumentsText: '{"path":"2"}' },
      { id: "gen_1", name: "write_file", argumentsText: '{"path":"3"}' },
      { id: "gen_2", name: "list_files", argumentsText: "" },
    ]);
  });
});
