"""Interactive prompts (questionary). They only ask; every choice calls a service function."""
