from agentdeck import Agent

support = Agent(
    name="support",
    instructions="Help.",
    skills=["pdf", "sheets", "pdf-tools"],
)
