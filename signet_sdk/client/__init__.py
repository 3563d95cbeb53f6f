"""The client layer: sync and async ``AdapterClient`` over HTTP, retries within one deadline."""
