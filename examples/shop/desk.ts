// The shop's desk in TypeScript: a tracking subagent the main session delegates to.
import { query, type AgentDefinition } from "@anthropic-ai/claude-agent-sdk";

const tracker: AgentDefinition = {
  description: "Looks up where an order is.",
  prompt: "Find the order and report its status.",
  skills: ["order-staus"],
};

export async function answer(prompt: string): Promise<void> {
  for await (const message of query({
    prompt,
    options: { skills: ["refund-policy", "order-status"], settingSources: ["project"], agents: { tracker } },
  })) {
    console.log(message);
  }
}
