"""Rich views and prompts shared by the commands and the menus: one renderer per kind of result."""
