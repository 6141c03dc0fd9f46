from workflows import AgentDefinition

# another library's AgentDefinition: not the Claude Agent SDK's, never checked
nightly = AgentDefinition(description="d", prompt="p", skills=["no-such-skill"])
