import { query } from '@anthropic-ai/claude-agent-sdk';

export const run = (prompt: string) => query({ prompt, options: { skills: ['parse-request'] } });
