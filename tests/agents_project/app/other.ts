import { query } from "./db";

// another library's query(): not the Claude Agent SDK's, never checked
query({ prompt: "select", options: { skills: ["no-such-skill"] } });
