import * as sdk from "@anthropic-ai/claude-agent-sdk";

const options = {
  skills: ["code-review", "release-notes"],
  agents: {
    notes: { description: "Writes notes.", prompt: "Write.", skills: ["release-notes"] },
  },
};

for await (const message of sdk.query({ prompt: "Go", options })) {
  console.log(message);
}
