from claude_agent_sdk import ClaudeAgentOptions

as_string = ClaudeAgentOptions(skills="refund-policy")
padded = ClaudeAgentOptions(skills=[" refund-policy", "refund-policy"])
wildcard = ClaudeAgentOptions(skills=["*"])
typo = ClaudeAgentOptions(skills=["refund-polcy"])
