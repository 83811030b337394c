"""Running the service: its health, its heartbeats, and the tools an operator uses."""
