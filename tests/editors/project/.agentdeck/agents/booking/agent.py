from agentdeck import Agent, Deck

booking = Agent(name="Booking", instructions="Help the user book a ride.", skills=["parse-request", "parse-reqest"])

deck = Deck.from_project(agents=[booking])
