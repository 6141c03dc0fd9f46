"""The shop's support desk: Claude with the shop's skills."""

from claude_agent_sdk import ClaudeAgentOptions


def desk(skills):
    return ClaudeAgentOptions(skills=skills, setting_sources=["project"])


support_options = ClaudeAgentOptions(
    skills=["refund-policy", "order-status", "shop:*"],
    setting_sources=["project"],
)

returns_options = ClaudeAgentOptions(skills=["refund-polcy", "shipping-times"])
