from claude_agent_sdk import AgentDefinition as Definition
from claude_agent_sdk import ClaudeAgentOptions

options = ClaudeAgentOptions(
    skills=["release-notes"],
    agents={"notes": Definition(description="Writes notes.", prompt="Write.", skills=["release-notes", "code-review"])},
)
