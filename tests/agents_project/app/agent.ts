import { query, type AgentDefinition } from "@anthropic-ai/claude-agent-sdk";

const checker: AgentDefinition = { description: "Prüft 🚀 Änderungen", prompt: "Check.", skills: ["code-reviw"] };

export async function run(prompt: string) {
  for await (const message of query({ prompt, options: { skills: ["release-notes"], agents: { checker } } })) {
    console.log(message);
  }
}
