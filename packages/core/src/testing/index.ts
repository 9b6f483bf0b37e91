// `@agentq/core/testing`: stand-ins for model providers, for tests, the demo and the benchmark.
// Never a production default.
export { type FakeProviderServer, startFakeProviderServer } from "./fake-provider-server.ts";
export { scenarioInput, scenarioResponder } from "./scenario-responder.ts";
export { ScriptedModel, type ScriptedResponder, type ScriptedStep } from "./scripted-model.ts";
export { largeMarkdownDocument } from "./large-markdown-document.ts";
export { type PdfTextBox, type ReadPdf, readPdf, textOutsideMargins } from "./read-pdf.ts";
