"""The runtime layer: the adapter contract, harness plugins, the registry and dispatch.

Submodules are imported on use; ``runtime.dispatch``, ``runtime.plugin``,
``runtime.native`` and ``runtime.generic`` are standard library only, so a
hook process can use them without pydantic or httpx.
"""
