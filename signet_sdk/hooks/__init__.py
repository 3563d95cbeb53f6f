"""The hook layer: one native event as a short-lived process.

Bounded stdin, one deadline, fail-open output, the durable outbox and the
detached sender. Standard library only: this is a prompt's critical path.
"""
