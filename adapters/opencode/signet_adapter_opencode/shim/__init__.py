"""The OpenCode plugin (``signet-sdk.js``): package data the installer copies to OpenCode."""
