#!/usr/bin/env node
// The `agentq` command (npx agentq from the checkout): the CLI is TypeScript run through tsx, as the
// rest of agentq is, so a checkout needs no build step.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
