from claude_agent_sdk import ClaudeAgentOptions

options = ClaudeAgentOptions(skills=["refund-policy", "refund-polcy"], setting_sources=["project"])
