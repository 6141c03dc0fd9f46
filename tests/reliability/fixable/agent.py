from agentdeck import Agent, Deck

booking = Agent(
    name="Booking",
    instructions="Book rides.",
    skills=["confirm-booking", "quote-fare", "quote-fare", "qoute-fare", "brand-new", "bad-name"],
)

deck = Deck(agents=[booking], skills="./.agentdeck/skills")
