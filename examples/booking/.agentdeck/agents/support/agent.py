# .agentdeck/agents/support/agent.py
from agentdeck import Agent, Deck

support = Agent(
    name="Support",
    instructions="Answer questions about existing bookings.",
    skills=["parse-request", "confirm-booking", "parse-request"],
)

deck = Deck(agents=[support], skills="../../skills")
