"""The pi extension (``index.js``): package data the installer copies into pi's agent directory."""
