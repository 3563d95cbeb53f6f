"""The wire layer: standard library only.

The endpoint map, the lifecycle table, request building and answer
judging, configuration (arguments > environment > defaults), errors,
retries and the lean HTTP/1.1 transport a hook process uses. Nothing here
imports pydantic, httpx or anything above this layer.
"""
