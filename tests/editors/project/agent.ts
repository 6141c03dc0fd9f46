import { query } from '@anthropic-ai/claude-agent-sdk';

// only here for the editor test: Neovim attaches the server to TypeScript files
export const run = (prompt: string) => query({ prompt });
