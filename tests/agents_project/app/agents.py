from claude_agent_sdk import AgentDefinition, ClaudeAgentOptions

summariser = AgentDefinition(
    description="Summarises a release — «résumé» 🚀",
    prompt="Summarise the release.",
    skills=["relase-notes"],
)

options = ClaudeAgentOptions(
    skills=["code-review"],
    agents={"summariser": summariser},
)
